package dev.memstack.support;

/**
 * The text rule of stored memory, shared by the host's routes and the plugins' tool arguments: a
 * text may hold tab, line feed and carriage return, but no NUL and no other C0 ({@code U+0000} to
 * {@code U+001F}) or C1 ({@code U+007F} to {@code U+009F}) control character. Such characters reach
 * a model or a terminal as instructions (an ESC starts a terminal escape sequence) and break stores
 * that end strings at a NUL; what comes in with them is refused, and what was stored before the
 * rule is cleaned on its way out ({@link #strip}). JDK only; stateless.
 */
public final class ControlCharacters {

  private ControlCharacters() {}

  /** Whether {@code c} is refused in text: a C0 or C1 control character but tab, LF and CR. */
  public static boolean refused(char c) {
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || (c >= 0x7f && c <= 0x9f);
  }

  /** The index of the first refused control character in {@code text}, or -1 for none. */
  public static int find(CharSequence text) {
    for (int i = 0; i < text.length(); i++) {
      if (refused(text.charAt(i))) {
        return i;
      }
    }
    return -1;
  }

  /** {@code text} without its refused control characters; the same instance when it has none. */
  public static String strip(String text) {
    if (text == null) {
      return null;
    }
    int first = find(text);
    if (first < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() - 1).append(text, 0, first);
    for (int i = first + 1; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!refused(c)) {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * What is wrong with {@code text} for an error message, e.g. {@code "userMessage must not contain
   * control characters other than tab, line feed and carriage return (U+001B at index 4)"}, or
   * {@code null} when nothing is.
   */
  public static String problem(String field, CharSequence text) {
    int at = find(text);
    if (at < 0) {
      return null;
    }
    return field
        + " must not contain NUL or control characters other than tab, line feed and carriage"
        + " return (U+"
        + String.format("%04X", (int) text.charAt(at))
        + " at index "
        + at
        + ")";
  }
}
