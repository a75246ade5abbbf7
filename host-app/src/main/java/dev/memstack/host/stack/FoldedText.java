package dev.memstack.host.stack;

import com.ibm.icu.text.SpoofChecker;
import java.text.Normalizer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A copy of a text folded for fence detection, with a map from every position of the copy back to
 * the original, so that what a pattern finds in the copy is cut from the original text: the
 * original keeps every character that no match covers (CJK punctuation such as {@code ，} stays as
 * it was, where NFKC would rewrite it to {@code ,}).
 *
 * <p>Folding, one code point at a time: format characters (Unicode category Cf: zero-width space,
 * soft hyphen, zero-width joiner, word joiner, byte order mark...) and combining marks are dropped;
 * ASCII stays as it is; any other code point becomes its NFKC form when that is ASCII (fullwidth
 * {@code ＜／＞}, ideographic space), else the ASCII character whose UTS #39 confusable skeleton
 * (ICU4J {@link SpoofChecker#getSkeleton}) it shares (Greek {@code ο}, Cyrillic {@code о} and
 * {@code е}), else its skeleton when that is ASCII, else itself. Immutable.
 */
final class FoldedText {

  private static final SpoofChecker SPOOF = new SpoofChecker.Builder().build();

  /** The printable ASCII character of each skeleton; letters win over digits and punctuation. */
  private static final Map<String, String> ASCII_OF_SKELETON = asciiOfSkeleton();

  /** Folds of non-ASCII code points seen so far; bounded so hostile text cannot grow it. */
  private static final Map<Integer, String> FOLDS = new ConcurrentHashMap<>();

  private static final int MAX_CACHED_FOLDS = 8192;

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

  /** The folded copy of {@code original}. */
  static FoldedText of(String original) {
    if (isAscii(original)) {
      // nothing to fold: the copy is the original, position for position
      return new FoldedText(original, original, null, null);
    }
    Builder out = new Builder(original.length());
    for (int i = 0; i < original.length(); ) {
      int codePoint = original.codePointAt(i);
      int next = i + Character.charCount(codePoint);
      String fold = codePoint < 0x80 ? null : fold(codePoint);
      if (fold == null) {
        // kept as it is, both UTF-16 units of a supplementary code point
        for (int j = i; j < next; j++) {
          out.put(original.charAt(j), i, next);
        }
      } else {
        for (int j = 0; j < fold.length(); j++) {
          out.put(fold.charAt(j), i, next);
        }
      }
      i = next;
    }
    return new FoldedText(original, out.text.toString(), out.starts, out.ends);
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
    String cached = FOLDS.get(codePoint);
    if (cached != null) {
      return cached.equals(KEEP) ? null : cached;
    }
    String fold = computeFold(codePoint);
    if (FOLDS.size() < MAX_CACHED_FOLDS) {
      FOLDS.put(codePoint, fold == null ? KEEP : fold);
    }
    return fold;
  }

  /** Cache value of a code point kept as it is (a lone surrogate can never be a fold). */
  private static final String KEEP = "\uD800";

  private static String computeFold(int codePoint) {
    int type = Character.getType(codePoint);
    if (type == Character.FORMAT
        || type == Character.NON_SPACING_MARK
        || type == Character.ENCLOSING_MARK) {
      return "";
    }
    String text = new String(Character.toChars(codePoint));
    String nfkc = withoutMarks(Normalizer.normalize(text, Normalizer.Form.NFKC));
    if (isAscii(nfkc)) {
      return nfkc;
    }
    String skeleton = withoutMarks(SPOOF.getSkeleton(nfkc));
    String ascii = ASCII_OF_SKELETON.get(skeleton);
    if (ascii != null) {
      return ascii;
    }
    return isAscii(skeleton) && !skeleton.isEmpty() ? skeleton : null;
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
