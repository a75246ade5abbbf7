package dev.memstack.vector.text;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Whether a new statement repeats an older one, changes one of its values, or is about something
 * else. The rule, in three steps:
 *
 * <ol>
 *   <li><b>Near-duplicate?</b> Both texts must speak of the same subject: the same grammatical
 *       person when both name one (I / she), and the same relations (my mother, 我妈妈). Then they are
 *       near-duplicates when their <em>wording</em> is alike — the Dice coefficient of their
 *       wording units is at least {@value #SAME_WORDING} — or when it is at least half alike
 *       ({@value #HALF_WORDING}; or neither text has any wording left) and their embeddings are at
 *       least the caller's threshold similar ({@code dedupe-threshold} for {@code remember}).
 *       Wording units are the content words (function words, intensifiers and "now"-style markers
 *       removed, contractions expanded, Snowball-stemmed) and, for Chinese, the remaining
 *       characters and character bigrams; values (below) are not wording. The embedder alone never
 *       decides: with E5-small-v2 unrelated sentences of one topic reach cosine 0.96-0.97 ("I live
 *       in Berlin" / "I work in Berlin") and short Chinese sentences 0.98-1.0. Identical texts
 *       (case and spaces aside) are always duplicates.
 *   <li><b>Changed value?</b> A near-duplicate pair is an {@link Verdict#UPDATE} when any value
 *       differs: negation (not, no, never, n't, cannot, without; 不, 没, 没有, 别, 无, 未, 非 — but not in
 *       非常, 别人, 不错, ...), a yes/no answer (leading, or right after a question mark; 是的 / 不), the
 *       set of numbers (digits, number words, Chinese numerals; a lone "one"/一个 is an article and
 *       matches no number), dates (weekdays, month names, today/tomorrow; 星期一, 明天), colours (blue;
 *       白色), quoted strings, and names (capitalised words that do not start a sentence, or start it
 *       as the subject of "is/was"; words with two capitals; a Chinese name after 叫/名叫/姓) — a name
 *       differs when it does not occur in the other text at all.
 *   <li><b>Nothing new?</b> Otherwise the pair is a {@link Verdict#DUPLICATE} when the newer text
 *       adds no content word (or Chinese character) the older one lacks, and {@link
 *       Verdict#UNRELATED} when it says more: both stand.
 * </ol>
 *
 * Not recognised as values: changed ordinary words ("the password is swordfish" → "marlin"),
 * Chinese place and person names outside 叫/姓 (北京 → 上海), synonyms. Such a pair is UNRELATED (both
 * kept). A paraphrase in other words ("I adore sushi" / "Sushi is my favourite") is UNRELATED too:
 * storing it twice costs less than losing a statement. Stateless and thread-safe.
 */
public final class Supersession {

  /** Least Dice coefficient of the wording units for a near-duplicate by wording. */
  public static final double SAME_WORDING = 0.75;

  /** Least Dice coefficient of the wording units for the embedder's near-duplicate to count. */
  public static final double HALF_WORDING = 0.5;

  /** What a new statement is to an older one. */
  public enum Verdict {
    /** The same statement again (a paraphrase): nothing new to store. */
    DUPLICATE,
    /** The same statement with a changed value: the new one supersedes the old one. */
    UPDATE,
    /** About something else: both stand. */
    UNRELATED
  }

  /**
   * The comparison behind a verdict.
   *
   * @param wording Dice coefficient of the wording units, 0 to 1
   * @param samePerson false when both texts name a grammatical person and the persons differ
   * @param changed the values that differ (e.g. {@code number}, {@code negation}), empty if none
   */
  public record Comparison(
      Verdict verdict, double wording, boolean samePerson, List<String> changed) {}

  private Supersession() {}

  /** The verdict by wording alone (no embedding similarity). */
  public static Verdict judge(String older, String newer) {
    return compare(older, newer, Double.NaN, Double.NaN).verdict();
  }

  /**
   * The verdict when the embedder also compared the texts.
   *
   * @param cosine the cosine similarity of the two texts' embeddings, or NaN if unknown
   * @param nearThreshold the cosine at which the embedder takes them as near-duplicates
   */
  public static Verdict judge(String older, String newer, double cosine, double nearThreshold) {
    return compare(older, newer, cosine, nearThreshold).verdict();
  }

  /** The full comparison; see {@link #judge(String, String, double, double)}. */
  public static Comparison compare(
      String older, String newer, double cosine, double nearThreshold) {
    Objects.requireNonNull(older, "older");
    Objects.requireNonNull(newer, "newer");
    Statement a = Statement.parse(older);
    Statement b = Statement.parse(newer);
    // a capitalised word that the other text has as an ordinary word is an ordinary word in both
    Set<String> ordinaryA = new HashSet<>(a.names);
    ordinaryA.retainAll(b.contentWords);
    Set<String> ordinaryB = new HashSet<>(b.names);
    ordinaryB.retainAll(a.contentWords);
    Set<String> names = new HashSet<>(a.names);
    names.addAll(b.names);
    names.removeAll(ordinaryA);
    names.removeAll(ordinaryB);
    List<String> changed = changedValues(a, b, names);
    double wording = dice(a.units(names, ordinaryA), b.units(names, ordinaryB));
    boolean samePerson =
        (a.persons.isEmpty() || b.persons.isEmpty() || a.persons.equals(b.persons))
            && a.relations.equals(b.relations);
    Set<String> wordsA = a.words(names, ordinaryA);
    Set<String> wordsB = b.words(names, ordinaryB);
    Set<String> added = new HashSet<>(wordsB);
    added.removeAll(wordsA);
    boolean nearByWording = samePerson && wording >= SAME_WORDING;
    boolean nearByEmbedding =
        samePerson
            && !Double.isNaN(cosine)
            && cosine >= nearThreshold
            && (wording >= HALF_WORDING || (wordsA.isEmpty() && wordsB.isEmpty()));
    Verdict verdict;
    if (a.normalized.equals(b.normalized)) {
      verdict = Verdict.DUPLICATE;
    } else if (!nearByWording && !nearByEmbedding) {
      verdict = Verdict.UNRELATED;
    } else if (!changed.isEmpty()) {
      verdict = Verdict.UPDATE;
    } else if (added.isEmpty()) {
      verdict = Verdict.DUPLICATE;
    } else {
      verdict = Verdict.UNRELATED; // says more than the older one: both stand
    }
    return new Comparison(verdict, wording, samePerson, List.copyOf(changed));
  }

  private static List<String> changedValues(Statement a, Statement b, Set<String> names) {
    List<String> changed = new ArrayList<>();
    if (a.negated != b.negated) {
      changed.add("negation");
    }
    if (a.answer != null && b.answer != null && a.answer != b.answer) {
      changed.add("answer");
    }
    if (!sameNumbers(a, b)) {
      changed.add("number");
    }
    if (!a.dates.equals(b.dates)) {
      changed.add("date");
    }
    if (!a.colours.equals(b.colours)) {
      changed.add("colour");
    }
    if (!a.quotes.equals(b.quotes)) {
      changed.add("quoted");
    }
    if (!namesOccur(a, b, names) || !namesOccur(b, a, names)) {
      changed.add("name");
    }
    return changed;
  }

  private static boolean sameNumbers(Statement a, Statement b) {
    if (a.numbers.equals(b.numbers)) {
      return true;
    }
    // "a cat" and "one cat", 一个老师 and 老师
    return (a.softOne && b.numbers.isEmpty()) || (b.softOne && a.numbers.isEmpty());
  }

  /** Whether every name of {@code from} occurs in {@code in} (as a name or as any word). */
  private static boolean namesOccur(Statement from, Statement in, Set<String> names) {
    for (String name : from.names) {
      if (!names.contains(name)) {
        continue; // an ordinary word of the other text
      }
      boolean han = Statement.isHan(name.codePointAt(0));
      boolean occurs = han ? in.normalized.contains(name) : in.words.contains(name);
      if (!occurs) {
        return false;
      }
    }
    return true;
  }

  private static double dice(Set<String> a, Set<String> b) {
    if (a.isEmpty() || b.isEmpty()) {
      return 0;
    }
    int common = 0;
    for (String unit : a) {
      if (b.contains(unit)) {
        common++;
      }
    }
    return 2.0 * common / (a.size() + b.size());
  }
}
