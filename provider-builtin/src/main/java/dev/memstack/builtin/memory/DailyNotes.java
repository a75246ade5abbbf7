package dev.memstack.builtin.memory;

/** Text helpers for daily-note entries. */
final class DailyNotes {

  private DailyNotes() {}

  /**
   * The gist of a message for a one-line entry: whitespace collapsed, HTML comment delimiters
   * defused (so a message cannot forge a turn marker), cut to {@code max} characters at a word
   * boundary where one is near, with an ellipsis.
   */
  static String gist(String text, int max) {
    String flat = text.strip().replaceAll("\\s+", " ");
    flat = flat.replace("<!--", "<!- -").replace("-->", "- ->");
    if (flat.isEmpty()) {
      return "(empty)";
    }
    if (flat.length() <= max) {
      return flat;
    }
    int cut = max - 1;
    if (Character.isHighSurrogate(flat.charAt(cut - 1))) {
      cut--;
    }
    int space = flat.lastIndexOf(' ', cut);
    if (space > cut * 4 / 5) {
      cut = space;
    }
    return flat.substring(0, cut).stripTrailing() + "…";
  }

  /**
   * A turn id safe inside an HTML comment: characters other than {@code [A-Za-z0-9._:-]} escaped.
   */
  static String markerId(String turnId) {
    StringBuilder out = new StringBuilder();
    for (byte b : turnId.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '.'
          || c == '_'
          || c == ':'
          || c == '-') {
        out.append((char) c);
      } else {
        out.append('%').append(String.format("%02X", c));
      }
    }
    return out.toString();
  }
}
