package dev.memstack.host.stack;

import com.ibm.icu.lang.UCharacter;
import com.ibm.icu.lang.UProperty;
import com.ibm.icu.text.SpoofChecker;
import java.text.Normalizer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A copy of a text folded for fence detection, with a map from every position of the copy back to
 * the original, so that what a pattern finds in the copy is cut from the original text: the
 * original keeps every character that no match covers (CJK punctuation such as {@code ，} stays as
 * it was, where NFKC would rewrite it to {@code ,}).
 *
 * <p>Decoding: each escape a model reads through ({@link FenceEscapes}: HTML/XML entities,
 * percent-encoding, backslash escapes) becomes the character it stands for, mapped to the whole
 * escape in the original; the pass repeats while it decodes anything (at most {@value #MAX_PASSES}
 * passes), so double encoding ({@code &amp;lt;}, {@code %253C}) is undone too. Each pass is linear
 * in the text.
 *
 * <p>Folding, one code point at a time (and cached per code point): format and other
 * default-ignorable characters (zero-width space, soft hyphen, joiners, word joiner, byte order
 * mark, Hangul filler...) and combining marks are dropped; every Unicode space becomes a space;
 * ASCII, ideographs, kana and hangul stay as they are; Latin and common characters whose Unicode
 * name says they are a Latin letter (small capital {@code ᴍ}, enclosed {@code 🅜}) or an angle
 * bracket ({@code 〈 《 ⟨ ‹ ❮ ˂}) become that letter or {@code <}/{@code >}; any other code point
 * becomes its NFKC form when that is ASCII (fullwidth {@code ＜／＞}, mathematical letters,
 * ideographic space), else the ASCII character whose UTS #39 confusable skeleton (ICU4J {@link
 * SpoofChecker#getSkeleton}) it shares (Greek {@code ο}, Cyrillic {@code о} and {@code е}), else
 * its skeleton when that is ASCII, else itself. Immutable.
 */
final class FoldedText {

  private static final SpoofChecker SPOOF = new SpoofChecker.Builder().build();

  /** The printable ASCII character of each skeleton; letters win over digits and punctuation. */
  private static final Map<String, String> ASCII_OF_SKELETON = asciiOfSkeleton();

  private final String original;
  private final String folded;

  /** Per folded character, where its original code point starts; {@code null}: the same. */
  private final int[] starts;

  /** Per folded character, where its original code point ends; {@code null}: one further. */
  private final int[] ends;

  private FoldedText(String original, String folded, int[] starts, int[] ends) {
    this.original = original;
    this.folded = folded;
    this.starts = starts;
    this.ends = ends;
  }

  /** The most passes over a text: one per level of encoding undone ({@code &amp;amp;lt;}: 3). */
  private static final int MAX_PASSES = 8;

  /** The folded copy of {@code original}. */
  static FoldedText of(String original) {
    if (isPlain(original)) {
      // nothing to fold or decode: the copy is the original, position for position
      return new FoldedText(original, original, null, null);
    }
    String text = original;
    int[] starts = null;
    int[] ends = null;
    boolean changed = false;
    // Characters that fold to nothing (zero-width space...) stay while escapes are decoded, so they
    // end a reference as they do for a browser (&#x79 then U+200B then c is y, not U+079C); one
    // last
    // pass drops them.
    boolean drop = false;
    boolean droppable = false;
    for (int pass = 0; ; pass++) {
      Builder out = new Builder(text.length());
      boolean decoded = false;
      for (int i = 0; i < text.length(); ) {
        char c = text.charAt(i);
        long escape = FenceEscapes.starts(c) ? FenceEscapes.decode(text, i) : -1;
        int codePoint;
        int next;
        if (escape >= 0) {
          codePoint = (int) (escape >>> 32);
          next = i + (int) escape;
          decoded = true;
        } else {
          codePoint = text.codePointAt(i);
          next = i + Character.charCount(codePoint);
        }
        int start = starts == null ? i : starts[i];
        int end = ends == null ? next : ends[next - 1];
        String fold = codePoint < 0x80 ? null : fold(codePoint);
        if (fold != null && fold.isEmpty() && !drop) {
          droppable = true;
          fold = null;
        }
        if (fold == null) {
          if (escape >= 0) {
            out.put(codePoint, start, end);
          } else {
            // kept as it is, both UTF-16 units of a supplementary code point
            for (int j = i; j < next; j++) {
              out.put(text.charAt(j), start, end);
            }
          }
        } else {
          changed = true;
          for (int j = 0; j < fold.length(); j++) {
            out.put(fold.charAt(j), start, end);
          }
        }
        i = next;
      }
      changed |= decoded;
      text = out.text.toString();
      starts = out.starts;
      ends = out.ends;
      if (drop) {
        break;
      }
      if (!decoded || pass >= MAX_PASSES - 1) {
        if (!droppable) {
          break;
        }
        drop = true;
      }
    }
    if (!changed) {
      return new FoldedText(original, original, null, null);
    }
    return new FoldedText(original, text, starts, ends);
  }

  /** Whether {@code text} is ASCII without an escape: its fold is itself. */
  private static boolean isPlain(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c >= 0x80 || FenceEscapes.starts(c)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code text} may hold a fence tag at all: whether it has a character that is, or can
   * fold or decode to, {@code <} or {@code >}. Every tag pattern needs one, so a text without any
   * is left alone without being folded. Costs one table look-up per character.
   */
  static boolean mayHoldTag(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        if (c == '<' || c == '>' || FenceEscapes.starts(c)) {
          return true;
        }
      } else if (Character.isSurrogate(c)) {
        int codePoint = text.codePointAt(i);
        if (isCandidate(fold(codePoint))) {
          return true;
        }
        i += Character.charCount(codePoint) - 1;
      } else {
        byte known = CANDIDATES[c];
        if (known == 0) {
          known = isCandidate(fold(c)) ? (byte) 2 : (byte) 1;
          CANDIDATES[c] = known;
        }
        if (known == 2) {
          return true;
        }
      }
    }
    return false;
  }

  /** Per BMP character: 0 not yet known, 1 folds to nothing a tag needs, 2 it may. */
  private static final byte[] CANDIDATES = new byte[0x10000];

  private static boolean isCandidate(String fold) {
    if (fold == null) {
      return false;
    }
    for (int i = 0; i < fold.length(); i++) {
      char c = fold.charAt(i);
      if (c == '<' || c == '>' || FenceEscapes.starts(c)) {
        return true;
      }
    }
    return false;
  }

  /** The folded characters and, per character, the original range it came from. */
  private static final class Builder {
    final StringBuilder text;
    int[] starts;
    int[] ends;

    Builder(int length) {
      text = new StringBuilder(length);
      starts = new int[length];
      ends = new int[length];
    }

    void put(int codePoint, int start, int end) {
      if (Character.isBmpCodePoint(codePoint)) {
        put((char) codePoint, start, end);
      } else {
        put(Character.highSurrogate(codePoint), start, end);
        put(Character.lowSurrogate(codePoint), start, end);
      }
    }

    void put(char c, int start, int end) {
      int at = text.length();
      if (at == starts.length) {
        // a code point folded to more characters than it had (a ligature such as U+FB01)
        starts = Arrays.copyOf(starts, at * 2 + 4);
        ends = Arrays.copyOf(ends, at * 2 + 4);
      }
      text.append(c);
      starts[at] = start;
      ends[at] = end;
    }
  }

  /** The folded copy. */
  String folded() {
    return folded;
  }

  /** The original text. */
  String original() {
    return original;
  }

  /** Where in the original the folded range {@code [start, end)} begins. */
  int originalStart(int start) {
    if (starts == null) {
      return start;
    }
    return start < folded.length() ? starts[start] : original.length();
  }

  /** Where in the original the folded range {@code [start, end)} ends (exclusive). */
  int originalEnd(int start, int end) {
    if (ends == null) {
      return end;
    }
    return end > start ? ends[end - 1] : originalStart(start);
  }

  /** Whether {@code pattern} finds anything in the folded copy. */
  boolean find(Pattern pattern) {
    return pattern.matcher(folded).find();
  }

  /**
   * The original text with every original range whose folded copy {@code pattern} matches replaced
   * by {@code replacement}; the rest of the original unchanged. When nothing matches, the original
   * string itself (the same instance) is returned.
   */
  String replaceAll(Pattern pattern, String replacement) {
    Matcher matcher = pattern.matcher(folded);
    StringBuilder out = null;
    int copied = 0;
    while (matcher.find()) {
      if (matcher.end() == matcher.start()) {
        continue;
      }
      int start = Math.max(copied, originalStart(matcher.start()));
      int end = originalEnd(matcher.start(), matcher.end());
      if (out == null) {
        out = new StringBuilder(original.length());
      }
      out.append(original, copied, start).append(replacement);
      copied = Math.max(copied, end);
    }
    if (out == null) {
      return original;
    }
    return out.append(original, copied, original.length()).toString();
  }

  /**
   * The fold of one non-ASCII code point: {@code ""} to drop it, {@code null} to keep it as it is,
   * else its ASCII look-alike.
   */
  static String fold(int codePoint) {
    String cached =
        codePoint < BMP_FOLDS.length ? BMP_FOLDS[codePoint] : SUPPLEMENTARY_FOLDS.get(codePoint);
    if (cached != null) {
      return cached == KEEP ? null : cached;
    }
    String fold = computeFold(codePoint);
    String value = fold == null ? KEEP : fold;
    if (codePoint < BMP_FOLDS.length) {
      // a benign race: every thread computes the same immutable string
      BMP_FOLDS[codePoint] = value;
    } else if (SUPPLEMENTARY_FOLDS.size() < MAX_CACHED_FOLDS) {
      SUPPLEMENTARY_FOLDS.put(codePoint, value);
    }
    return fold;
  }

  /** Cache value of a code point kept as it is (compared by identity). */
  private static final String KEEP = new String("keep");

  /** Folds of BMP code points seen so far, by code point. */
  private static final String[] BMP_FOLDS = new String[0x10000];

  /** Folds of supplementary code points seen so far; bounded so hostile text cannot grow it. */
  private static final Map<Integer, String> SUPPLEMENTARY_FOLDS = new ConcurrentHashMap<>();

  private static final int MAX_CACHED_FOLDS = 8192;

  /**
   * Skeletons that are no ASCII character but read as one: {@code ʍ} is the skeleton of small
   * capital {@code ᴍ} and Cyrillic {@code м}, {@code ❬} of {@code 〈} and {@code ⟨}.
   */
  private static final Map<String, String> READS_AS =
      Map.ofEntries(
          Map.entry("\u028D", "m"),
          Map.entry("\u276C", "<"),
          Map.entry("\u276D", ">"),
          Map.entry("\u2770", "<"),
          Map.entry("\u2771", ">"),
          Map.entry("\u03C7", "x"));

  /** The Latin letter a Unicode name spells: small capitals, squared and negative letters. */
  private static final Pattern LETTER_NAME =
      Pattern.compile(
          "(?:NEGATIVE )?(?:CIRCLED |SQUARED |PARENTHESIZED )?"
              + "(?:LATIN (?:CAPITAL |SMALL )?LETTER (?:SMALL CAPITAL )?|MODIFIER LETTER"
              + " (?:CAPITAL |SMALL )(?:CAPITAL )?|LATIN SUBSCRIPT (?:CAPITAL |SMALL )LETTER"
              + " |REGIONAL INDICATOR SYMBOL LETTER )([A-Z])(?: WITH .*)?");

  /** Angle brackets and quotation marks by name: {@code 《}, {@code ⟪}, {@code ❮}, {@code ⧼}. */
  private static final Pattern BRACKET_NAME =
      Pattern.compile(
          "(?!.*VERTICAL)(?:.* )?(LEFT|RIGHT)(?:-POINTING)?(?: .*)? ANGLE"
              + " (?:BRACKET|QUOTATION MARK)(?: .*)?"
              + "|(?:.* )?(?:LEFT|RIGHT) ARROWHEAD"
              + "|(?:FULLWIDTH |SMALL |MUCH |VERY MUCH )?(LESS|GREATER)-THAN(?: SIGN| WITH DOT)?");

  private static final Set<Character.UnicodeScript> SCRIPTS_KEPT =
      EnumSet.of(
          Character.UnicodeScript.HAN,
          Character.UnicodeScript.HIRAGANA,
          Character.UnicodeScript.KATAKANA,
          Character.UnicodeScript.HANGUL);

  private static String computeFold(int codePoint) {
    int type = Character.getType(codePoint);
    if (type == Character.FORMAT
        || type == Character.NON_SPACING_MARK
        || type == Character.ENCLOSING_MARK
        || UCharacter.hasBinaryProperty(codePoint, UProperty.DEFAULT_IGNORABLE_CODE_POINT)) {
      return "";
    }
    if (Character.isWhitespace(codePoint) || Character.isSpaceChar(codePoint)) {
      return " ";
    }
    if (SCRIPTS_KEPT.contains(Character.UnicodeScript.of(codePoint))) {
      // ideographs, kana and hangul: none reads as a bracket or a letter of the tag
      return null;
    }
    String byName = byName(codePoint);
    if (byName != null) {
      return byName;
    }
    String text = new String(Character.toChars(codePoint));
    String nfkc = withoutMarks(Normalizer.normalize(text, Normalizer.Form.NFKC));
    if (isAscii(nfkc)) {
      return nfkc;
    }
    if (nfkc.codePointCount(0, nfkc.length()) == 1
        && (byName = byName(nfkc.codePointAt(0))) != null) {
      return byName;
    }
    // the skeleton of the code point itself first: NFKC turns lunate sigma (U+03F2), a c, into ς
    String ownSkeleton = withoutMarks(SPOOF.getSkeleton(text));
    String ascii = ASCII_OF_SKELETON.get(ownSkeleton);
    if (ascii != null) {
      return ascii;
    }
    String skeleton = nfkc.equals(text) ? ownSkeleton : withoutMarks(SPOOF.getSkeleton(nfkc));
    ascii = ASCII_OF_SKELETON.get(skeleton);
    if (ascii == null) {
      ascii = READS_AS.get(skeleton);
    }
    if (ascii != null) {
      return ascii;
    }
    return isAscii(skeleton) && !skeleton.isEmpty() ? skeleton : null;
  }

  /** What the Unicode name of {@code codePoint} says it reads as: a Latin letter or a bracket. */
  private static String byName(int codePoint) {
    Character.UnicodeScript script = Character.UnicodeScript.of(codePoint);
    if (script != Character.UnicodeScript.LATIN && script != Character.UnicodeScript.COMMON) {
      // the letters and brackets named here are all Latin or common; looking a name up is slow
      return null;
    }
    String name = UCharacter.getName(codePoint);
    if (name == null) {
      return null;
    }
    Matcher letter = LETTER_NAME.matcher(name);
    if (letter.matches()) {
      return letter.group(1).toLowerCase(Locale.ROOT);
    }
    Matcher bracket = BRACKET_NAME.matcher(name);
    if (bracket.matches()) {
      String side = bracket.group(1) != null ? bracket.group(1) : bracket.group(2);
      if (side == null) {
        side = name.contains("LEFT") ? "LEFT" : "RIGHT";
      }
      return side.equals("LEFT") || side.equals("LESS") ? "<" : ">";
    }
    return null;
  }

  private static String withoutMarks(String text) {
    StringBuilder out = new StringBuilder(text.length());
    text.codePoints()
        .filter(
            c -> {
              int type = Character.getType(c);
              return type != Character.FORMAT
                  && type != Character.NON_SPACING_MARK
                  && type != Character.ENCLOSING_MARK;
            })
        .forEach(out::appendCodePoint);
    return out.toString();
  }

  private static boolean isAscii(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }

  private static Map<String, String> asciiOfSkeleton() {
    Map<String, String> map = new HashMap<>();
    StringBuilder order = new StringBuilder();
    for (char c = 'a'; c <= 'z'; c++) {
      order.append(c);
    }
    for (char c = 'A'; c <= 'Z'; c++) {
      order.append(c);
    }
    for (char c = '0'; c <= '9'; c++) {
      order.append(c);
    }
    for (char c = '!'; c <= '~'; c++) {
      if (!Character.isLetterOrDigit(c)) {
        order.append(c);
      }
    }
    for (int i = 0; i < order.length(); i++) {
      String ascii = String.valueOf(order.charAt(i));
      map.putIfAbsent(SPOOF.getSkeleton(ascii), ascii);
    }
    return Map.copyOf(map);
  }
}
