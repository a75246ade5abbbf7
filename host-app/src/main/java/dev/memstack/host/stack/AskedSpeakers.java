package dev.memstack.host.stack;

import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Which chat speakers among one call's candidates a question asks about. A speaker is asked when a
 * word of the question is a word of its label ("Fahim" for {@code fahim khan:}), or is that word
 * misspelt: the same first letter and one edit apart (two for words of six letters or more:
 * "Nikolas" for Nicolas, "Mohamed" for Muhhamed), for words of four letters or more. A name the
 * question uses that is no speaker's, and that only some speakers write in their lines while the
 * candidates show exactly one other speaker, is taken as what the writers call that other speaker
 * ("Kate", as a friend calls the one she talks to). Plain string work over the labels the
 * candidates carry.
 */
final class AskedSpeakers {

  private AskedSpeakers() {}

  /** The labels ({@link QuestionCues#speaker()}) of the speakers {@code question} asks about. */
  static Set<String> of(QuestionCues question, QuestionCues[] items) {
    Set<String> speakers = new LinkedHashSet<>();
    for (QuestionCues item : items) {
      if (item.speaker() != null) {
        speakers.add(item.speaker());
      }
    }
    Set<String> asked = new HashSet<>();
    if (speakers.isEmpty()) {
      return asked;
    }
    for (String speaker : speakers) {
      if (question.all().stream().anyMatch(word -> names(word, speaker))) {
        asked.add(speaker);
      }
    }
    for (String name : question.names()) {
      if (speakers.stream().anyMatch(speaker -> names(name, speaker))) {
        continue;
      }
      Set<String> writers = new HashSet<>();
      for (QuestionCues item : items) {
        if (item.speaker() != null && item.words().contains(name)) {
          writers.add(item.speaker());
        }
      }
      if (!writers.isEmpty() && speakers.size() - writers.size() == 1) {
        speakers.stream().filter(s -> !writers.contains(s)).forEach(asked::add);
      }
    }
    return asked;
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
    return Math.abs(a.length() - b.length()) <= allowed && edits(a, b) <= allowed;
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
