package dev.memstack.builtin.memory;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The entries of a daily note as the memory-admin tools see them: an entry is a {@code ### }
 * heading (a turn's, {@code ### 09:30 · web · conversation c1 <!-- turn:t1 -->}, or an extracted
 * entry's) with the lines below it, up to the next heading of level one to three. Text before the
 * first such heading (the note's {@code # date} title) belongs to no entry. Stateless.
 */
final class DailyEntries {

  private static final Pattern TIME = Pattern.compile("^(\\d{2}):(\\d{2})\\b");
  private static final Pattern MARKER = Pattern.compile("\\s*<!--.*?-->");
  private static final Pattern TURN = Pattern.compile("<!-- turn:(\\S+)");

  private DailyEntries() {}

  /**
   * One entry.
   *
   * @param heading its heading line without {@code "### "}
   * @param body the lines below the heading, without the blank lines around them
   * @param start where the heading line starts in the note
   * @param end where the next heading starts (the blank lines before it belong to this entry), or
   *     the note's length
   */
  record Block(String heading, String body, int start, int end) {

    /** The heading as people read it ({@link DailyEntries#title}). */
    String title() {
      return DailyEntries.title(heading);
    }

    /** The id of the turn the entry was written for, or {@code null}. */
    String turn() {
      Matcher matcher = TURN.matcher(heading);
      if (!matcher.find()) {
        return null;
      }
      try {
        return URLDecoder.decode(matcher.group(1), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return matcher.group(1);
      }
    }

    /** When the entry was written: its note's date at the heading's time, or {@code null}. */
    Instant time(LocalDate date, ZoneId zone) {
      Matcher matcher = TIME.matcher(heading);
      if (!matcher.find()) {
        return null;
      }
      int hour = Integer.parseInt(matcher.group(1));
      int minute = Integer.parseInt(matcher.group(2));
      if (hour > 23 || minute > 59) {
        return null;
      }
      return date.atTime(LocalTime.of(hour, minute)).atZone(zone).toInstant();
    }
  }

  /** A heading (or a section name) as people read it: without its turn marker. */
  static String title(String heading) {
    return MARKER.matcher(heading).replaceAll("").strip();
  }

  /** The entries of a note, in note order. */
  static List<Block> parse(String content) {
    String text = content.replace("\r\n", "\n");
    List<Block> blocks = new ArrayList<>();
    int open = -1;
    String heading = null;
    int at = 0;
    while (at <= text.length()) {
      int lineEnd = text.indexOf('\n', at);
      if (lineEnd < 0) {
        lineEnd = text.length();
      }
      String line = text.substring(at, lineEnd);
      if (isHeading(line)) {
        if (open >= 0) {
          blocks.add(block(text, heading, open, at));
        }
        open = line.startsWith("### ") ? at : -1;
        heading = open >= 0 ? line.substring(4).strip() : null;
      }
      if (lineEnd == text.length()) {
        break;
      }
      at = lineEnd + 1;
    }
    if (open >= 0) {
      blocks.add(block(text, heading, open, text.length()));
    }
    return blocks;
  }

  private static boolean isHeading(String line) {
    return line.startsWith("# ") || line.startsWith("## ") || line.startsWith("### ");
  }

  private static Block block(String text, String heading, int start, int end) {
    int bodyStart = text.indexOf('\n', start);
    String body = bodyStart < 0 || bodyStart >= end ? "" : text.substring(bodyStart + 1, end);
    return new Block(heading, body.strip(), start, end);
  }

  /** The note without {@code block}, ending with one line break. */
  static String remove(String content, Block block) {
    String text = content.replace("\r\n", "\n");
    return tidy(text.substring(0, block.start()) + text.substring(block.end()));
  }

  /** The note with {@code block}'s lines below its heading replaced by {@code body}. */
  static String replace(String content, Block block, String body) {
    String text = content.replace("\r\n", "\n");
    String after = text.substring(block.end());
    return tidy(
        text.substring(0, block.start())
            + "### "
            + block.heading()
            + "\n"
            + body
            + "\n"
            + (after.isEmpty() ? "" : "\n")
            + after);
  }

  /**
   * The note (a new one titled {@code # date} when {@code content} is {@code null}) with an entry
   * of {@code heading} and {@code body} at its end.
   */
  static String append(String content, LocalDate date, String heading, String body) {
    String base = content == null ? "# " + date + "\n" : content.replace("\r\n", "\n");
    String stripped = base.stripTrailing();
    return stripped + "\n\n### " + heading + "\n" + body + "\n";
  }

  /**
   * {@code text} as an entry's body: stripped, and a line that would start a heading escaped with a
   * backslash, so the entry stays one.
   */
  static String body(String text) {
    String[] lines = text.strip().replace("\r\n", "\n").split("\n", -1);
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      if (out.length() > 0) {
        out.append('\n');
      }
      out.append(line.startsWith("#") ? "\\" + line : line);
    }
    return out.toString();
  }

  private static String tidy(String note) {
    return note.stripTrailing() + "\n";
  }
}
