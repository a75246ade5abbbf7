package dev.memstack.host.stack;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the ranking stage reads off a question or a memory's text without any model: its content
 * words, the names it mentions, the speaker label a chat line starts with, and the kind of answer a
 * question wants (a time, a place, a person, a number) or a text holds. English cues; a text in
 * another language simply shows none of them, and the learned weights of the other features carry
 * its ranking. Immutable; built once per text.
 */
record QuestionCues(
    Set<String> words,
    Set<String> all,
    Set<String> names,
    String speaker,
    int length,
    boolean time,
    boolean number,
    boolean place,
    boolean person) {

  /** What a question asks for. */
  enum Wants {
    TIME,
    PLACE,
    PERSON,
    NUMBER,
    OTHER
  }

  /*
   * A word is a letter or a number, then letters, numbers and apostrophes (the regular expression
   * [\p{L}\p{N}][\p{L}\p{N}'’]*), read by hand: this runs for every candidate of every context
   * call, and a scan of the code points costs a fraction of a regex matcher (QuestionCuesTest holds
   * the two to the same words).
   */

  /** A chat line's speaker label: one or two words and a colon at the start. */
  private static final Pattern SPEAKER =
      Pattern.compile("^\\s*(\\p{L}[\\p{L}.'-]{0,30}(?: \\p{L}[\\p{L}.'-]{0,30})?)\\s*:");

  private static final Set<String> STOP =
      Set.of(
          "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "for", "with",
          "by", "from", "as", "is", "are", "was", "were", "be", "been", "being", "do", "does",
          "did", "done", "have", "has", "had", "will", "would", "can", "could", "should", "may",
          "might", "must", "shall", "what", "when", "where", "who", "whom", "whose", "which", "why",
          "how", "that", "this", "these", "those", "it", "its", "i", "you", "he", "she", "we",
          "they", "me", "him", "her", "us", "them", "my", "your", "his", "our", "their", "mine",
          "about", "into", "than", "then", "there", "here", "so", "not", "no", "yes", "up", "out",
          "s", "t", "don't", "didn't", "doesn't", "any", "some", "all", "also", "just", "very",
          "much", "many", "more", "most", "other", "own", "such", "only", "ever", "kind", "type",
          "get", "got", "go", "went", "going", "like", "lol", "yeah", "oh", "ok", "okay");

  /** The months, January first. */
  static final List<String> MONTHS =
      java.util.Arrays.stream(java.time.Month.values())
          .map(m -> m.name().toLowerCase(Locale.ROOT))
          .toList();

  private static final Set<String> TIME_WORDS = timeWords();

  private static Set<String> timeWords() {
    Set<String> words = new java.util.HashSet<>(MONTHS);
    words.addAll(
        List.of(
            "jan",
            "feb",
            "mar",
            "apr",
            "jun",
            "jul",
            "aug",
            "sep",
            "sept",
            "oct",
            "nov",
            "dec",
            "monday",
            "tuesday",
            "wednesday",
            "thursday",
            "friday",
            "saturday",
            "sunday",
            "today",
            "tomorrow",
            "yesterday",
            "tonight",
            "week",
            "weekend",
            "month",
            "year",
            "years",
            "ago",
            "morning",
            "evening",
            "night",
            "afternoon",
            "summer",
            "winter",
            "spring",
            "fall",
            "autumn",
            "birthday",
            "christmas",
            "holiday",
            "holidays",
            "semester",
            "soon",
            "later",
            "last",
            "next",
            "since",
            "until",
            "days",
            "weeks",
            "months",
            "hours",
            "o'clock",
            "am",
            "pm"));
    return Set.copyOf(words);
  }

  /** Number words and words that count or order things. */
  private static final Set<String> NUMBER_WORDS = numberWords();

  private static Set<String> numberWords() {
    Set<String> words = new java.util.HashSet<>(dev.memstack.support.NumberWords.VALUES.keySet());
    words.addAll(List.of("dozen", "few", "several", "once", "twice", "first", "second", "third"));
    return Set.copyOf(words);
  }

  private static final Set<String> PLACE_PREPOSITIONS = Set.of("in", "at", "to", "from", "near");

  static QuestionCues of(String text) {
    String body = message(text == null ? "" : text);
    Matcher label = SPEAKER.matcher(body);
    String speaker = null;
    if (label.find()) {
      speaker = stem(fold(label.group(1)));
      body = body.substring(label.end());
    }
    Set<String> words = new LinkedHashSet<>();
    Set<String> all = new java.util.HashSet<>();
    Set<String> names = new LinkedHashSet<>();
    boolean time = false;
    boolean number = hasDigit(body);
    boolean place = false;
    boolean person = false;
    int length = 0;
    String previous = null;
    boolean sentenceStart = true;
    int last = 0;
    for (int start = wordStart(body, 0); start >= 0; start = wordStart(body, last)) {
      int end = wordEnd(body, start);
      length++;
      String raw = body.substring(start, end);
      String word = fold(raw);
      String stemmed = stem(word);
      for (int at = last; at < start && !sentenceStart; at++) {
        char c = body.charAt(at);
        sentenceStart = c == '.' || c == '?' || c == '!';
      }
      last = end;
      boolean capital = Character.isUpperCase(raw.codePointAt(0));
      if (capital && !sentenceStart && !word.equals("i") && !STOP.contains(word)) {
        names.add(stemmed);
        person = true;
        if (previous != null && PLACE_PREPOSITIONS.contains(previous)) {
          place = true;
        }
      }
      all.add(stemmed);
      time |= TIME_WORDS.contains(word);
      number |= NUMBER_WORDS.contains(word);
      if (!STOP.contains(word) && word.length() > 1) {
        words.add(stemmed);
      }
      previous = word;
      sentenceStart = false;
    }
    if (speaker != null) {
      all.add(speaker);
    }
    return new QuestionCues(words, all, names, speaker, length, time, number, place, person);
  }

  private static final String[] ROLES = {"user", "assistant"};

  /**
   * The message of an item's text: header lines (a file location such as {@code notes.md (personal)
   * (line 5):}, Markdown headings) dropped and role labels ({@code user:}, {@code **User:**})
   * removed, so that length, words and the speaker label are the message's own. Plain string scans:
   * it runs for every candidate of every context call.
   */
  static String message(String text) {
    if (text.indexOf('\n') < 0 && !text.startsWith("#") && roleEnd(text) == 0) {
      return text; // one plain line: most items
    }
    StringBuilder out = new StringBuilder();
    for (String line : bodyLines(text, Integer.MAX_VALUE)) {
      line = line.substring(roleEnd(line)).strip();
      if (!line.isEmpty()) {
        if (out.length() > 0) {
          out.append('\n');
        }
        out.append(line);
      }
    }
    return out.toString();
  }

  /**
   * The first {@code most} lines of {@code text} that are neither empty nor a header (a file
   * location such as {@code notes.md (personal) (line 5):}, a Markdown heading), stripped.
   */
  private static List<String> bodyLines(String text, int most) {
    List<String> lines = new ArrayList<>();
    int start = 0;
    while (start <= text.length() && lines.size() < most) {
      int end = text.indexOf('\n', start);
      if (end < 0) {
        end = text.length();
      }
      String line = text.substring(start, end).strip();
      start = end + 1;
      if (!line.isEmpty()
          && !line.startsWith("#")
          && !(line.endsWith("):") && line.contains("(line "))) {
        lines.add(line);
      }
    }
    return lines;
  }

  /** The end of a leading role label ({@code user:}, {@code **Assistant:**}), or 0. */
  private static int roleEnd(String line) {
    int at = line.startsWith("**") ? 2 : 0;
    for (String role : ROLES) {
      if (line.regionMatches(true, at, role, 0, role.length())) {
        int colon = at + role.length();
        if (colon < line.length() && line.charAt(colon) == ':') {
          int end = colon + 1;
          if (line.startsWith("**", end)) {
            end += 2;
          }
          return end;
        }
      }
    }
    return 0;
  }

  /**
   * The head of a chat line up to and with its speaker label, bold markers removed, as a model
   * reads it before the message: {@code user: akib:} of {@code **user:** akib: i do} (a file
   * location or a heading line before it skipped); {@code null} when the text has no speaker label.
   */
  static String speakerPrefix(String text) {
    List<String> first = text == null ? List.of() : bodyLines(text, 1);
    if (first.isEmpty()) {
      return null;
    }
    String plain = first.get(0).replace("**", "");
    int role = roleEnd(plain);
    Matcher label = SPEAKER.matcher(plain.substring(role));
    return label.find() ? plain.substring(0, role + label.end()).strip() : null;
  }

  /**
   * The words of {@code text} whose form in {@link #all()} is one of {@code words}, as written but
   * without a possessive ending ("Kate" for "Kate's"), each once, in order.
   */
  static List<String> matching(String text, Set<String> words) {
    Set<String> found = new LinkedHashSet<>();
    if (!words.isEmpty()) {
      for (int start = wordStart(text, 0), end; start >= 0; start = wordStart(text, end)) {
        end = wordEnd(text, start);
        String raw = text.substring(start, end);
        if (words.contains(stem(fold(raw)))) {
          found.add(POSSESSIVE.matcher(raw).replaceFirst(""));
        }
      }
    }
    return List.copyOf(found);
  }

  private static final Pattern POSSESSIVE = Pattern.compile("['’][sS]$");

  /** What {@link #wants} reads as a space: anything but letters, digits and apostrophes. */
  private static final Pattern NOT_A_WORD = Pattern.compile("[^\\p{L}\\p{N}' ]");

  /** Whether {@code cp} is a letter or a number ({@code \p{L}} or {@code \p{N}}). */
  private static boolean letterOrNumber(int cp) {
    if (cp < 0x80) {
      return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
    }
    if (Character.isLetter(cp)) {
      return true;
    }
    int type = Character.getType(cp);
    return type == Character.DECIMAL_DIGIT_NUMBER
        || type == Character.LETTER_NUMBER
        || type == Character.OTHER_NUMBER;
  }

  /** Where the next word of {@code text} starts at or after {@code from}, or -1. */
  private static int wordStart(String text, int from) {
    for (int at = from; at < text.length(); ) {
      int cp = text.codePointAt(at);
      if (letterOrNumber(cp)) {
        return at;
      }
      at += Character.charCount(cp);
    }
    return -1;
  }

  /** Where the word of {@code text} that starts at {@code start} ends. */
  private static int wordEnd(String text, int start) {
    int at = start + Character.charCount(text.codePointAt(start));
    while (at < text.length()) {
      int cp = text.codePointAt(at);
      if (!(letterOrNumber(cp) || cp == '\'' || cp == '’')) {
        break;
      }
      at += Character.charCount(cp);
    }
    return at;
  }

  /** Whether {@code text} holds an ASCII digit ({@code \d}). */
  private static boolean hasDigit(String text) {
    for (int at = 0; at < text.length(); at++) {
      char c = text.charAt(at);
      if (c >= '0' && c <= '9') {
        return true;
      }
    }
    return false;
  }

  /** Case-folded, typographic apostrophes made plain. */
  private static String fold(String word) {
    return word.toLowerCase(Locale.ROOT).replace('’', '\'');
  }

  /** A light stem: possessive and plural endings dropped, so "Kevin's" meets "Kevin". */
  private static String stem(String word) {
    String w = word;
    if (w.endsWith("'s")) {
      w = w.substring(0, w.length() - 2);
    }
    if (w.length() > 4 && w.endsWith("ies")) {
      return w.substring(0, w.length() - 3) + "y";
    }
    if (w.length() > 3 && w.endsWith("s") && !w.endsWith("ss")) {
      return w.substring(0, w.length() - 1);
    }
    return w;
  }

  /** The question's kind of answer, from its first wh-words. */
  static Wants wants(String question) {
    String q = " " + NOT_A_WORD.matcher(fold(question == null ? "" : question)).replaceAll(" ");
    if (q.contains(" how many ")
        || q.contains(" how much ")
        || q.contains(" how old ")
        || q.contains(" how long ")
        || q.contains(" how often ")) {
      return Wants.NUMBER;
    }
    if (q.contains(" when ") || q.contains(" what time ") || q.contains(" what year ")) {
      return Wants.TIME;
    }
    if (q.contains(" where ")) {
      return Wants.PLACE;
    }
    if (q.contains(" who ") || q.contains(" whom ") || q.contains(" whose ")) {
      return Wants.PERSON;
    }
    return Wants.OTHER;
  }

  /** Whether this text holds the kind of answer {@code wants} names. */
  boolean holds(Wants wants) {
    return switch (wants) {
      case TIME -> time;
      case NUMBER -> number;
      case PLACE -> place;
      case PERSON -> person;
      case OTHER -> false;
    };
  }
}
