package dev.memstack.host.stack;

import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.commons.codec.language.DoubleMetaphone;

/**
 * Which chat speakers among one call's candidates a question asks about. A speaker is asked when a
 * word of the question is a word of its label ("Fahim" for {@code fahim khan:}), or is that word
 * misspelt: the same first letter and one edit apart (two for words of six letters or more:
 * "Nikolas" for Nicolas, "Mohamed" for Muhhamed) or the same sound by Double Metaphone ("Muhammad"
 * for Muhhamed, "Faheem" for Fahim), for words of four letters or more. A name the question uses
 * that is no speaker's, and that only some speakers write in their lines while the candidates show
 * exactly one other speaker, is taken as what the writers call that other speaker ("Kate", as a
 * friend calls the one she talks to), unless the question names that speaker already: then the name
 * is something that speaker mentioned (a place, a game), not another name for them. Plain string
 * work over the labels the candidates carry.
 */
final class AskedSpeakers {

  private AskedSpeakers() {}

  /** The labels ({@link QuestionCues#speaker()}) of the speakers {@code question} asks about. */
  static Set<String> of(QuestionCues question, QuestionCues[] items) {
    return resolve(question, items).speakers();
  }

  /**
   * The speakers a question asks about and the question's words that name them.
   *
   * @param speakers the labels ({@link QuestionCues#speaker()}) of the speakers asked about
   * @param words the question's words (as in {@link QuestionCues#all()}) that name one of them
   */
  record Asked(Set<String> speakers, Set<String> words) {}

  /** The speakers {@code question} asks about among the candidates', and the words naming them. */
  static Asked resolve(QuestionCues question, QuestionCues[] items) {
    Set<String> speakers = new LinkedHashSet<>();
    for (QuestionCues item : items) {
      if (item.speaker() != null) {
        speakers.add(item.speaker());
      }
    }
    Set<String> asked = new HashSet<>();
    Set<String> words = new HashSet<>();
    if (speakers.isEmpty()) {
      return new Asked(asked, words);
    }
    for (String speaker : speakers) {
      for (String word : question.all()) {
        if (names(word, speaker)) {
          asked.add(speaker);
          words.add(word);
        }
      }
    }
    Set<String> named = Set.copyOf(asked);
    for (String name : question.names()) {
      if (speakers.stream().anyMatch(speaker -> names(name, speaker))) {
        continue;
      }
      Set<String> others = new LinkedHashSet<>(speakers);
      boolean written = false;
      for (QuestionCues item : items) {
        if (item.speaker() != null && item.words().contains(name)) {
          others.remove(item.speaker());
          written = true;
        }
      }
      // a name for a speaker the question already names is no other name for them
      if (written && others.size() == 1 && !named.containsAll(others)) {
        asked.addAll(others);
        words.add(name);
      }
    }
    return new Asked(asked, words);
  }

  /**
   * The words of {@code question} that name the speakers it asks about among {@code texts} (the
   * candidates' texts), as written ("Kate" for "Kate's"); none when nothing else would be left of
   * the question. Every text, the question's too, is read by {@code cues}.
   */
  static List<String> speakerNames(
      String question, Collection<String> texts, Function<String, QuestionCues> cues) {
    QuestionCues[] items = new QuestionCues[texts.size()];
    int i = 0;
    for (String text : texts) {
      items[i++] = cues.apply(text);
    }
    QuestionCues asked = cues.apply(question);
    Set<String> words = resolve(asked, items).words();
    if (words.containsAll(asked.words())) {
      return List.of();
    }
    return QuestionCues.matching(question, words);
  }

  /** Whether {@code word} names the speaker of {@code label}: one of its words, or misspelt. */
  static boolean names(String word, String label) {
    for (String part : label.split(" ")) {
      if (close(word, part)) {
        return true;
      }
    }
    return false;
  }

  private static boolean close(String a, String b) {
    if (a.equals(b)) {
      return true;
    }
    if (a.length() < 4 || b.length() < 4 || a.charAt(0) != b.charAt(0)) {
      return false;
    }
    int allowed = Math.min(a.length(), b.length()) < 6 ? 1 : 2;
    return (Math.abs(a.length() - b.length()) <= allowed && edits(a, b) <= allowed)
        || sameSound(a, b);
  }

  private static final DoubleMetaphone SOUND = new DoubleMetaphone();

  /**
   * Whether two words sound the same by Double Metaphone, an H aside (it is written or left out at
   * will in transcribed names: "Muhammad" and "muhhamed", "Faheem" and "fahim"), with codes of
   * three sounds or more, so that short words do not meet by chance.
   */
  private static boolean sameSound(String a, String b) {
    String x = SOUND.doubleMetaphone(a);
    String y = SOUND.doubleMetaphone(b);
    return x != null
        && y != null
        && x.length() >= 3
        && y.length() >= 3
        && x.replace("H", "").equals(y.replace("H", ""));
  }

  /**
   * Edits (insert, delete, replace, swap of neighbours) from {@code a} to {@code b}: the optimal
   * string alignment distance, on words of a question and a label (a dozen letters), so a plain
   * table is enough.
   */
  static int edits(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
