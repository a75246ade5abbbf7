package dev.memstack.support;

/**
 * UTF-16 checks shared by the host's JSON routes and the plugins' tool arguments: a string with a
 * lone surrogate cannot be stored or sent as UTF-8, so both refuse it, naming the field. JDK only;
 * stateless.
 */
public final class Utf16 {

  private Utf16() {}

  /** The index of the first lone UTF-16 surrogate in {@code text}, or -1 for none. */
  public static int loneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }
}
