package dev.memstack.host.stack;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The escapes a model reads through, decoded one at a time for {@link FoldedText}: HTML/XML numeric
 * character references, decimal and hex, with or without the {@code ;} ({@code &#60;}, {@code
 * &#x3C}, {@code &#0060;}); named references, in any case and without the {@code ;} too ({@code
 * &lt;}, {@code &LT}, {@code &sol;}, {@code &hyphen;}, {@code &lang;}, {@code &mopf;}, {@code
 * &zwj;}...); percent-encoding ({@code %3C}, UTF-8 sequences such as {@code %EF%BC%9C}, {@code
 * %u003C}); backslash escapes (<code>&#92;u003c</code>, <code>&#92;u{3c}</code>, {@code \x3c},
 * {@code \U0000003c}, {@code \/}). Double encoding ({@code &amp;lt;}, {@code %253C}) is undone by
 * decoding again: {@link FoldedText} repeats its pass while anything was decoded. Stateless.
 */
final class FenceEscapes {

  /** Named references by their lower-case name. */
  private static final Map<String, Integer> NAMED = named();

  /** The longest name looked up. */
  private static final int MAX_NAME = 32;

  private FenceEscapes() {}

  /** Whether {@code c} can start an escape. */
  static boolean starts(char c) {
    return c == '&' || c == '%' || c == '\\';
  }

  /**
   * The escape at {@code at} in {@code text}: the code point it stands for in the upper 32 bits and
   * how many characters it takes in the lower 32 bits; {@code -1} when there is none.
   */
  static long decode(String text, int at) {
    char c = text.charAt(at);
    if (c == '&') {
      return entity(text, at);
    }
    if (c == '%') {
      return percent(text, at);
    }
    if (c == '\\') {
      return backslash(text, at);
    }
    return -1;
  }

  private static long found(int codePoint, int length) {
    return ((long) codePoint << 32) | length;
  }

  private static boolean valid(long codePoint) {
    return codePoint >= 0
        && codePoint <= Character.MAX_CODE_POINT
        && !(codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE);
  }

  private static long entity(String text, int at) {
    int i = at + 1;
    int n = text.length();
    if (i < n && text.charAt(i) == '#') {
      i++;
      int radix = 10;
      if (i < n && (text.charAt(i) == 'x' || text.charAt(i) == 'X')) {
        radix = 16;
        i++;
      }
      // leading zeros, any number of them, then at most seven digits
      int digitsStart = i;
      while (i < n && text.charAt(i) == '0') {
        i++;
      }
      long value = 0;
      int significant = 0;
      while (i < n && Character.digit(text.charAt(i), radix) >= 0 && text.charAt(i) < 0x80) {
        if (++significant > 7) {
          return -1;
        }
        value = value * radix + Character.digit(text.charAt(i), radix);
        i++;
      }
      if (i == digitsStart || !valid(value)) {
        return -1;
      }
      if (i < n && text.charAt(i) == ';') {
        i++;
      }
      return found((int) value, i - at);
    }
    int nameStart = i;
    while (i < n && i - nameStart < MAX_NAME && isAsciiLetterOrDigit(text.charAt(i))) {
      i++;
    }
    if (i == nameStart || !isAsciiLetter(text.charAt(nameStart))) {
      return -1;
    }
    String name = text.substring(nameStart, i).toLowerCase(Locale.ROOT);
    Integer codePoint = NAMED.get(name);
    if (codePoint != null) {
      boolean semicolon = i < n && text.charAt(i) == ';';
      return found(codePoint, i - at + (semicolon ? 1 : 0));
    }
    // the legacy references a browser reads without their ';' even when letters follow: &ltfoo
    for (String legacy : new String[] {"amp", "lt", "gt"}) {
      if (name.startsWith(legacy)) {
        return found(NAMED.get(legacy), 1 + legacy.length());
      }
    }
    return -1;
  }

  private static long percent(String text, int at) {
    int n = text.length();
    if (at + 5 < n && (text.charAt(at + 1) == 'u' || text.charAt(at + 1) == 'U')) {
      long value = hex(text, at + 2, 4);
      if (value >= 0 && valid(value)) {
        return found((int) value, 6);
      }
    }
    int first = (int) hex(text, at + 1, 2);
    if (first < 0) {
      return -1;
    }
    if (first < 0x80) {
      return found(first, 3);
    }
    // a UTF-8 sequence, one %XX per byte
    int count = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 0;
    if (count == 0) {
      return -1;
    }
    byte[] bytes = new byte[count];
    bytes[0] = (byte) first;
    for (int k = 1; k < count; k++) {
      int p = at + 3 * k;
      if (p >= n || text.charAt(p) != '%') {
        return -1;
      }
      long b = hex(text, p + 1, 2);
      if (b < 0) {
        return -1;
      }
      bytes[k] = (byte) b;
    }
    try {
      String decoded =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
      if (decoded.codePointCount(0, decoded.length()) != 1) {
        return -1;
      }
      return found(decoded.codePointAt(0), 3 * count);
    } catch (CharacterCodingException e) {
      return -1;
    }
  }

  private static long backslash(String text, int at) {
    int n = text.length();
    if (at + 1 >= n) {
      return -1;
    }
    char kind = text.charAt(at + 1);
    switch (kind) {
      case 'u':
        if (at + 2 < n && text.charAt(at + 2) == '{') {
          int close = text.indexOf('}', at + 3);
          if (close < 0 || close - (at + 3) < 1 || close - (at + 3) > 6) {
            return -1;
          }
          long value = hex(text, at + 3, close - (at + 3));
          return value >= 0 && valid(value) ? found((int) value, close + 1 - at) : -1;
        }
        long u = hex(text, at + 2, 4);
        return u >= 0 && valid(u) ? found((int) u, 6) : -1;
      case 'U':
        long big = hex(text, at + 2, 8);
        return big >= 0 && valid(big) ? found((int) big, 10) : -1;
      case 'x':
      case 'X':
        long x = hex(text, at + 2, 2);
        return x >= 0 ? found((int) x, 4) : -1;
      case '/':
      case '<':
      case '>':
      case '-':
      case '_':
        return found(kind, 2);
      default:
        return -1;
    }
  }

  /** The value of {@code digits} hex digits at {@code from}, or -1. */
  private static long hex(String text, int from, int digits) {
    if (from + digits > text.length()) {
      return -1;
    }
    long value = 0;
    for (int i = from; i < from + digits; i++) {
      char c = text.charAt(i);
      int digit = c < 0x80 ? Character.digit(c, 16) : -1;
      if (digit < 0) {
        return -1;
      }
      value = value * 16 + digit;
    }
    return value;
  }

  private static boolean isAsciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isAsciiLetterOrDigit(char c) {
    return isAsciiLetter(c) || (c >= '0' && c <= '9');
  }

  private static Map<String, Integer> named() {
    Map<String, Integer> map = new HashMap<>();
    Object[] pairs = {
      // the brackets and the slash
      "lt",
      '<',
      "gt",
      '>',
      "amp",
      '&',
      "sol",
      '/',
      "bsol",
      '\\',
      "frasl",
      0x2044,
      "lang",
      0x27E8,
      "rang",
      0x27E9,
      "langle",
      0x27E8,
      "rangle",
      0x27E9,
      "leftanglebracket",
      0x27E8,
      "rightanglebracket",
      0x27E9,
      "lsaquo",
      0x2039,
      "rsaquo",
      0x203A,
      "laquo",
      0xAB,
      "raquo",
      0xBB,
      "ll",
      0x226A,
      "gg",
      0x226B,
      "lessless",
      0x226A,
      "greatergreater",
      0x226B,
      "ltdot",
      0x22D6,
      "gtdot",
      0x22D7,
      // what joins the two words of the name
      "hyphen",
      0x2010,
      "dash",
      0x2010,
      "minus",
      0x2212,
      "ndash",
      0x2013,
      "mdash",
      0x2014,
      "lowbar",
      '_',
      "underbar",
      '_',
      "horbar",
      0x2015,
      // spaces and invisible characters
      "nbsp",
      0xA0,
      "ensp",
      0x2002,
      "emsp",
      0x2003,
      "emsp13",
      0x2004,
      "emsp14",
      0x2005,
      "numsp",
      0x2007,
      "puncsp",
      0x2008,
      "thinsp",
      0x2009,
      "hairsp",
      0x200A,
      "thinspace",
      0x2009,
      "verythinspace",
      0x200A,
      "mediumspace",
      0x205F,
      "zerowidthspace",
      0x200B,
      "negativethinspace",
      0x200B,
      "zwnj",
      0x200C,
      "zwj",
      0x200D,
      "lrm",
      0x200E,
      "rlm",
      0x200F,
      "nobreak",
      0x2060,
      "shy",
      0xAD,
      "tab",
      '\t',
      "newline",
      '\n',
      "invisibletimes",
      0x2062,
      "it",
      0x2062,
      "af",
      0x2061,
      "applyfunction",
      0x2061,
      "ic",
      0x2063,
      "invisiblecomma",
      0x2063,
      // punctuation an attribute or an escape is written with
      "quot",
      '"',
      "apos",
      '\'',
      "num",
      '#',
      "percnt",
      '%',
      "semi",
      ';',
      "colon",
      ':',
      "equals",
      '=',
      "period",
      '.',
      "comma",
      ',',
      // Greek and Cyrillic letters that read as Latin ones
      "omicron",
      0x03BF,
      "chi",
      0x03C7,
      "ocy",
      0x043E,
      "iecy",
      0x0435,
      "scy",
      0x0441,
      "khcy",
      0x0445,
      "ucy",
      0x0443,
      "mcy",
      0x043C,
      "tcy",
      0x0442,
      "ercy",
      0x0440,
    };
    for (int i = 0; i < pairs.length; i += 2) {
      Object value = pairs[i + 1];
      map.put((String) pairs[i], value instanceof Character ch ? (int) ch : (Integer) value);
    }
    // the mathematical letters: &mopf; (double-struck), &mfr; (fraktur), &mscr; (script)
    for (char c = 'a'; c <= 'z'; c++) {
      for (String suffix : new String[] {"opf", "fr", "scr"}) {
        map.putIfAbsent(c + suffix, (int) c);
      }
    }
    return Map.copyOf(map);
  }
}
