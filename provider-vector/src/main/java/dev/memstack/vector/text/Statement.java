package dev.memstack.vector.text;

import java.math.BigDecimal;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.tartarus.snowball.ext.EnglishStemmer;

/**
 * One short statement taken apart for {@link Supersession}: its <em>values</em> (negation, a yes/no
 * answer, numbers, dates, colours, quoted strings, names) and its <em>wording</em> (the remaining
 * content words, stemmed, and for Chinese the remaining characters and character bigrams), plus who
 * it is about (grammatical person). English and Chinese; other languages go through the English
 * rules (words between spaces, capitalised names).
 *
 * <p>Chinese has no spaces, so Chinese text is compared by characters and character bigrams after
 * removing values, person pronouns and function characters (的, 了, 是, ...). So {@code 我的储物柜密码是1111}
 * and {@code 我储物柜的密码是1111} both leave {@code 储物柜密码}. Removals join the characters around them, so
 * an inserted {@code 不} changes the negation, not the wording.
 */
final class Statement {

  /** A leading (or after a question mark) yes/no answer. */
  enum Answer {
    YES,
    NO
  }

  final boolean negated;
  final Answer answer;

  /** Numbers as plain decimal strings ({@code 1,200} and {@code 一千二百} are {@code 1200}). */
  final Set<String> numbers;

  /** Whether the only number is a "one" said as a word ({@code one}, {@code 一个}): an article. */
  final boolean softOne;

  final Set<String> dates;
  final Set<String> colours;
  final Set<String> quotes;

  /** Capitalised names (lower-cased), and Chinese names after 叫/名叫/姓. */
  final Set<String> names;

  /** Grammatical persons mentioned: 1s, 1p, 2, 3m, 3f, 3p. */
  final Set<String> persons;

  /** Relations mentioned (mother, sister, 丈夫, ...), canonical: who the statement is about. */
  final Set<String> relations;

  /** Every word of the text, lower-cased (to check whether a name occurs in it at all). */
  final Set<String> words;

  /** Content words, lower-cased, not stemmed; names of either text are dropped when comparing. */
  final List<String> contentWords;

  /** Chinese wording: the remaining characters of each Han run, joined. */
  final List<String> hanContent;

  /** The whole text, normalised (for Chinese name checks and identical texts). */
  final String normalized;

  private Statement(Builder b, String normalized) {
    this.negated = b.negated;
    this.answer = b.answer;
    this.softOne = b.numbers.size() == 1 && b.softOne && b.numbers.contains("1");
    this.numbers = Set.copyOf(b.numbers);
    this.dates = Set.copyOf(b.dates);
    this.colours = Set.copyOf(b.colours);
    this.quotes = Set.copyOf(b.quotes);
    this.names = Set.copyOf(b.names);
    this.persons = Set.copyOf(b.persons);
    this.relations = Set.copyOf(b.relations);
    this.words = Set.copyOf(b.words);
    this.contentWords = List.copyOf(b.contentWords);
    this.hanContent = List.copyOf(b.hanContent);
    this.normalized = normalized;
  }

  /** The single wording units: stemmed words and Han characters, without bigrams. */
  Set<String> words(Set<String> exclude, Set<String> asWords) {
    Set<String> single = new LinkedHashSet<>();
    for (String unit : units(exclude, asWords)) {
      if (!(unit.codePointCount(0, unit.length()) == 2 && isHan(unit.codePointAt(0)))) {
        single.add(unit);
      }
    }
    return single;
  }

  /**
   * The wording units: stemmed content words (plus {@code asWords}, names taken as ordinary words)
   * without {@code exclude}, and Han characters and bigrams without the Han names in {@code
   * exclude}.
   */
  Set<String> units(Set<String> exclude, Set<String> asWords) {
    Set<String> units = new LinkedHashSet<>();
    EnglishStemmer stemmer = new EnglishStemmer();
    List<String> latin = new ArrayList<>(contentWords);
    latin.addAll(asWords);
    for (String word : latin) {
      if (!exclude.contains(word)) {
        stemmer.setCurrent(word);
        stemmer.stem();
        units.add(stemmer.getCurrent());
      }
    }
    for (String run : hanContent) {
      String rest = run;
      for (String name : exclude) {
        if (!name.isEmpty() && isHan(name.codePointAt(0))) {
          rest = rest.replace(name, "");
        }
      }
      int[] cps = rest.codePoints().toArray();
      for (int i = 0; i < cps.length; i++) {
        units.add(new String(cps, i, 1));
        if (i + 1 < cps.length) {
          units.add(new String(cps, i, 2));
        }
      }
    }
    return units;
  }

  // ------------------------------------------------------------------ parsing

  private static final Pattern ROLE_PREFIX =
      Pattern.compile("^(?:\\[\\d{4}-\\d{2}-\\d{2}\\] )?(?:user|assistant): ");
  private static final Pattern DATE_PREFIX = Pattern.compile("^\\[\\d{4}-\\d{2}-\\d{2}\\] ");
  private static final Pattern QUOTED =
      Pattern.compile(
          "\"([^\"]{1,80})\"|«([^»]{1,80})»|「([^」]{1,80})」|『([^』]{1,80})』|《([^》]{1,80})》"
              + "|(?<![\\p{L}\\p{N}])'([^']{1,80})'(?![\\p{L}\\p{N}])");
  private static final Pattern LEADING_ANSWER_EN =
      Pattern.compile(
          "^\\s*(yes|yeah|yep|yup|correct|no|nope|nah)\\b[\\s,.!;:]*", Pattern.CASE_INSENSITIVE);
  private static final Pattern TRAILING_ANSWER_EN =
      Pattern.compile(
          "\\?\\s*(yes|yeah|yep|yup|correct|no|nope|nah)\\b[\\s,.!;:]*", Pattern.CASE_INSENSITIVE);
  private static final Pattern LEADING_ANSWER_ZH =
      Pattern.compile("^\\s*(是的|是啊|对的|没错|对|嗯|不是|不对|没有|不|没)\\s*[,.!;:?。、]");
  private static final Pattern DIGITS = Pattern.compile("\\d+(?:,\\d{3})*(?:\\.\\d+)?");
  private static final Pattern HAN_RUN = Pattern.compile("\\p{IsHan}+");

  static Statement parse(String raw) {
    String text = Normalizer.normalize(raw, Normalizer.Form.NFKC);
    text = ROLE_PREFIX.matcher(text).replaceFirst("");
    text = DATE_PREFIX.matcher(text).replaceFirst("");
    text = text.replace('\u2019', '\'').replace('\u2018', '\'');
    text = text.replace('\u201c', '"').replace('\u201d', '"').strip();
    String normalized = text.replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    Builder b = new Builder();

    // quoted strings are values
    StringBuilder rest = new StringBuilder();
    Matcher q = QUOTED.matcher(text);
    int last = 0;
    while (q.find()) {
      for (int g = 1; g <= q.groupCount(); g++) {
        if (q.group(g) != null) {
          b.quotes.add(q.group(g).strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT));
        }
      }
      rest.append(text, last, q.start()).append(" , ");
      last = q.end();
    }
    rest.append(text.substring(last));
    text = rest.toString();

    // a yes/no answer: leading, or right after a question
    Matcher a = LEADING_ANSWER_EN.matcher(text);
    if (a.find()) {
      b.answer = answerOf(a.group(1));
      text = ", " + text.substring(a.end()); // what follows is not a sentence start
    } else {
      Matcher z = LEADING_ANSWER_ZH.matcher(text);
      if (z.find()) {
        b.answer = StatementWords.YES_ZH.contains(z.group(1)) ? Answer.YES : Answer.NO;
        text = ", " + text.substring(z.end());
      }
    }
    Matcher t = TRAILING_ANSWER_EN.matcher(text);
    if (t.find()) {
      b.answer = answerOf(t.group(1));
      text = text.substring(0, t.start()) + ". " + text.substring(t.end());
    }

    // digits (with a Chinese unit character right after them: 5月, 3点, 2只)
    Matcher d = DIGITS.matcher(text);
    StringBuilder noDigits = new StringBuilder();
    last = 0;
    while (d.find()) {
      String number = d.group();
      b.numbers.add(plain(number.replace(",", "")));
      noDigits.append(text, last, d.start());
      boolean inHan =
          d.start() > 0
              && d.end() < text.length()
              && isHan(text.codePointBefore(d.start()))
              && isHan(text.codePointAt(d.end()));
      if (!inHan) {
        noDigits.append(' '); // between Chinese characters the run stays one run
      }
      last = d.end();
    }
    noDigits.append(text.substring(last));
    text = noDigits.toString();

    // Chinese runs
    Matcher h = HAN_RUN.matcher(text);
    while (h.find()) {
      HanParts.read(h.group(), b);
    }
    String latin = HAN_RUN.matcher(text).replaceAll(" ");
    LatinParts.read(latin, b);
    return new Statement(b, normalized);
  }

  static String plain(String number) {
    try {
      return new BigDecimal(number).stripTrailingZeros().toPlainString();
    } catch (NumberFormatException e) {
      return number;
    }
  }

  static boolean isHan(int codePoint) {
    return Character.UnicodeScript.of(codePoint) == Character.UnicodeScript.HAN;
  }

  /** What the parsers collect while they read a statement. */
  static final class Builder {
    boolean negated;
    Answer answer;
    boolean softOne;
    final Set<String> numbers = new LinkedHashSet<>();
    final Set<String> dates = new LinkedHashSet<>();
    final Set<String> colours = new LinkedHashSet<>();
    final Set<String> quotes = new LinkedHashSet<>();
    final Set<String> names = new LinkedHashSet<>();
    final Set<String> persons = new LinkedHashSet<>();
    final Set<String> relations = new LinkedHashSet<>();
    final Set<String> words = new LinkedHashSet<>();
    final List<String> contentWords = new ArrayList<>();
    final List<String> hanContent = new ArrayList<>();
  }

  /** YES for an English yes-word, NO for any other answer word. */
  private static Answer answerOf(String word) {
    return StatementWords.YES_WORDS.contains(word.toLowerCase(Locale.ROOT))
        ? Answer.YES
        : Answer.NO;
  }
}
