package dev.memstack.builtin.memory;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.spi.Scope;
import dev.memstack.spi.Turn;

/** Text helpers for daily-note entries. */
final class DailyNotes {

  private DailyNotes() {}

  /**
   * The marker of a turn's entry: {@code <!-- turn:ID -->} in a personal bucket (the bucket is the
   * agent's and the owner's already), {@code <!-- turn:ID owner:OWNER -->} in a team bucket (per-
   * owner memory off), since a turn id is unique only per agent and owner.
   */
  static String marker(Bucket bucket, Turn turn) {
    return bucket.scope() == Scope.PERSONAL
        ? legacyMarker(turn)
        : "<!-- turn:"
            + markerId(turn.turnId())
            + " owner:"
            + markerId(turn.owner().value())
            + " -->";
  }

  /**
   * Whether {@code note} has the entry of {@code turn} already. A team note written before 0.2.0
   * marked entries by turn id alone ({@code <!-- turn:ID -->}); such a marker still counts as the
   * turn's, whoever's it was, so a redelivery after the upgrade is not written twice (the cost: in
   * such an old note, another owner's turn of the same id is not added).
   */
  static boolean holds(String note, Bucket bucket, Turn turn) {
    return note.contains(marker(bucket, turn)) || note.contains(legacyMarker(turn));
  }

  private static String legacyMarker(Turn turn) {
    return "<!-- turn:" + markerId(turn.turnId()) + " -->";
  }

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
