package dev.memstack.vector.text;

import static dev.memstack.vector.text.StatementWords.CAPITAL_MONTHS;
import static dev.memstack.vector.text.StatementWords.COLOURS_EN;
import static dev.memstack.vector.text.StatementWords.MONTHS;
import static dev.memstack.vector.text.StatementWords.NAMING_EN;
import static dev.memstack.vector.text.StatementWords.NEGATION_EN;
import static dev.memstack.vector.text.StatementWords.NUMBER_WORDS;
import static dev.memstack.vector.text.StatementWords.PERSONS_EN;
import static dev.memstack.vector.text.StatementWords.RELATIONS_EN;
import static dev.memstack.vector.text.StatementWords.RELATIVE_DAYS;
import static dev.memstack.vector.text.StatementWords.STOP_EN;
import static dev.memstack.vector.text.StatementWords.WEEKDAYS;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the words between spaces of a {@link Statement}: numbers said as words, negation, persons,
 * dates, colours, relations, names and content words.
 */
final class LatinParts {

  private static final Pattern LATIN_WORD =
      Pattern.compile("[\\p{L}\\p{M}&&[^\\p{IsHan}]][\\p{L}\\p{M}'&&[^\\p{IsHan}]]*");

  private LatinParts() {}

  static void read(String text, Statement.Builder b) {
    Matcher m = LATIN_WORD.matcher(text);
    List<String> numberRun = new ArrayList<>();
    while (m.find()) {
      String original = m.group();
      boolean sentenceStart = sentenceStart(text, m.start());
      for (String word : expand(original)) {
        String lower = word.toLowerCase(Locale.ROOT);
        b.words.add(lower);
        if (NUMBER_WORDS.containsKey(lower)) {
          numberRun.add(lower);
          continue;
        }
        flushNumber(numberRun, b);
        if (NEGATION_EN.contains(lower)) {
          b.negated = true;
        } else if (PERSONS_EN.containsKey(lower)) {
          b.persons.add(PERSONS_EN.get(lower));
        } else if (WEEKDAYS.contains(lower)
            || MONTHS.contains(lower)
            || RELATIVE_DAYS.contains(lower)
            || (CAPITAL_MONTHS.contains(lower) && Character.isUpperCase(word.charAt(0)))) {
          b.dates.add(lower);
        } else if (COLOURS_EN.contains(lower)) {
          b.colours.add(lower);
        } else if (RELATIONS_EN.containsKey(lower)) {
          String relation = RELATIONS_EN.get(lower);
          b.relations.add(relation);
          b.contentWords.add(relation);
        } else if (NAMING_EN.contains(lower)) {
          b.contentWords.add("name"); // "is called", "is named", "name is": one notion, like 叫
        } else if (STOP_EN.contains(lower)) {
          // not wording
        } else if (isName(word, sentenceStart)
            || (sentenceStart && isSubjectName(original, text, m.end()))) {
          b.names.add(lower);
        } else {
          b.contentWords.add(lower);
        }
        sentenceStart = false;
      }
    }
    flushNumber(numberRun, b);
  }

  /** Contractions: {@code isn't} → is not, {@code I'm} → I am, {@code sister's} → sister. */
  private static List<String> expand(String word) {
    String lower = word.toLowerCase(Locale.ROOT);
    if (lower.equals("can't")) {
      return List.of("can", "not");
    }
    if (lower.equals("won't")) {
      return List.of("will", "not");
    }
    if (lower.endsWith("n't") && lower.length() > 3) {
      return List.of(word.substring(0, word.length() - 3), "not");
    }
    int apostrophe = word.indexOf('\'');
    if (apostrophe > 0) {
      String head = word.substring(0, apostrophe);
      String tail = lower.substring(apostrophe + 1);
      return switch (tail) {
        case "m" -> List.of(head, "am");
        case "re" -> List.of(head, "are");
        case "ve" -> List.of(head, "have");
        case "ll" -> List.of(head, "will");
        case "d" -> List.of(head, "would");
        default -> List.of(head); // 's: "is" or a possessive, neither is wording
      };
    }
    return List.of(word);
  }

  private static boolean isName(String word, boolean sentenceStart) {
    int upper = 0;
    for (int i = 0; i < word.length(); i++) {
      if (Character.isUpperCase(word.charAt(i))) {
        upper++;
      }
    }
    if (upper >= 2 && word.length() >= 2) {
      return true; // NASA, iPhone-like, McDonald
    }
    return upper == 1 && Character.isUpperCase(word.charAt(0)) && !sentenceStart;
  }

  /** A capitalised first word that is the subject of "is/was/..." ("Sam is my manager"). */
  private static boolean isSubjectName(String original, String text, int end) {
    if (!Character.isUpperCase(original.charAt(0))) {
      return false;
    }
    if (original.toLowerCase(Locale.ROOT).endsWith("'s")) {
      return true;
    }
    return SUBJECT_VERB.matcher(text).region(end, text.length()).lookingAt();
  }

  private static final Pattern SUBJECT_VERB =
      Pattern.compile("\\s+(?:is|was|are|were|has|had|will)\\b");

  private static boolean sentenceStart(String text, int index) {
    for (int i = index - 1; i >= 0; i--) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c) || c == '"' || c == '(' || c == '[') {
        continue;
      }
      return c == '.' || c == '!' || c == '?' || c == ':' || c == ';' || c == '。';
    }
    return true;
  }

  private static void flushNumber(List<String> run, Statement.Builder b) {
    if (run.isEmpty()) {
      return;
    }
    long total = 0;
    long current = 0;
    for (String word : run) {
      int value = NUMBER_WORDS.get(word);
      if (value == 100) {
        current = Math.max(current, 1) * 100;
      } else if (value >= 1000) {
        total += Math.max(current, 1) * value;
        current = 0;
      } else {
        current += value;
      }
    }
    long number = total + current;
    if (number == 1 && run.size() == 1) {
      b.softOne = true;
    }
    b.numbers.add(Long.toString(number));
    run.clear();
  }
}
