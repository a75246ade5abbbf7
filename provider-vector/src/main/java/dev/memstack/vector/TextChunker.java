package dev.memstack.vector;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits long text into pieces of at most a given length, preferring paragraph breaks, then
 * sentence ends, then spaces, so that each piece reads on its own.
 */
final class TextChunker {

  private TextChunker() {}

  /** The trimmed text in pieces of at most {@code maxChars} characters; none for blank text. */
  static List<String> chunks(String text, int maxChars) {
    List<String> out = new ArrayList<>();
    String rest = text.strip();
    while (!rest.isEmpty()) {
      if (rest.length() <= maxChars) {
        out.add(rest);
        break;
      }
      int cut = cutPoint(rest, maxChars);
      String piece = rest.substring(0, cut).strip();
      if (!piece.isEmpty()) {
        out.add(piece);
      }
      rest = rest.substring(cut).strip();
    }
    return out;
  }

  private static int cutPoint(String text, int maxChars) {
    int floor = maxChars / 2;
    int paragraph = text.lastIndexOf("\n\n", maxChars);
    if (paragraph >= floor) {
      return paragraph;
    }
    for (int i = maxChars - 1; i >= floor; i--) {
      char c = text.charAt(i);
      if ((c == '.' || c == '!' || c == '?' || c == '。' || c == '！' || c == '？' || c == '\n')
          && (i + 1 >= text.length() || Character.isWhitespace(text.charAt(i + 1)) || c > 0x3000)) {
        return i + 1;
      }
    }
    for (int i = maxChars; i >= floor; i--) {
      if (Character.isWhitespace(text.charAt(i))) {
        return i;
      }
    }
    // no break anywhere near: cut hard, but never inside a surrogate pair
    return Character.isLowSurrogate(text.charAt(maxChars)) ? maxChars - 1 : maxChars;
  }
}
