package dev.memstack.builtin.extraction;

import dev.memstack.builtin.workspace.Bucket;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The format of {@code DREAMS.md}, the dreaming journal: a title, then one {@code ## } entry per
 * run (date, scope, what it read, the patterns it found, what changed), newest last. Past its cap
 * the oldest entries are condensed into one line each under {@code ## Earlier entries (condensed)};
 * when those lines do not fit, the lines of each month, oldest month first, are summarised into one
 * line of that month ({@code - 2026-03 (12 entries): 5 changed memory}); only when even the monthly
 * lines do not fit are the oldest of them dropped and counted. Stateless.
 */
public final class DreamsJournal {

  static final String TITLE =
      "# DREAMS.md\n\nWhat dreaming read, which patterns it found and what it changed in"
          + " MEMORY.md, newest last.\n";
  static final String CONDENSED = "## Earlier entries (condensed)";

  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT);

  private DreamsJournal() {}

  /**
   * Where a job writes its entries: the bucket's {@code DREAMS.md}, kept within {@code
   * dreams-max-chars}, each entry headed by {@code now} and {@code heading} (such as {@code team ·
   * scheduled}).
   */
  record Writer(MemoryJobParts parts, Bucket bucket, ZonedDateTime now, String heading) {

    /** Appends an entry of what was read, the patterns found and what changed, one line each. */
    void write(String read, String patterns, String changed) {
      String entry =
          "## "
              + STAMP.format(now)
              + " · "
              + heading
              + "\n- Read: "
              + MemoryExtraction.oneLine(read, 600)
              + "\n- Patterns: "
              + MemoryExtraction.oneLine(patterns, 1000)
              + "\n- Changed: "
              + MemoryExtraction.oneLine(changed, 300);
      parts
          .files()
          .rewrite(
              bucket,
              Dreaming.DREAMS,
              current -> append(current, entry, parts.settings().dreamsMaxChars()));
    }
  }

  /** {@code content} with {@code entry} appended, cut to {@code maxChars} by condensing. */
  public static String append(String content, String entry, int maxChars) {
    List<String> condensed = new ArrayList<>();
    int dropped = 0;
    List<String> entries = new ArrayList<>();
    for (String block : blocks(content)) {
      if (block.startsWith(CONDENSED)) {
        for (String line : block.split("\n")) {
          if (line.startsWith("- (") && line.contains("older entries dropped")) {
            dropped += leadingNumber(line.substring(3));
          } else if (line.startsWith("- ")) {
            condensed.add(line);
          }
        }
      } else {
        entries.add(block);
      }
    }
    entries.add(entry.strip());
    String rendered = render(condensed, dropped, entries);
    while (rendered.length() > maxChars && entries.size() > 1) {
      condensed.add(condense(entries.remove(0)));
      rendered = render(condensed, dropped, entries);
    }
    if (rendered.length() > maxChars && !condensed.isEmpty()) {
      // the condensed lines of a month become one line of that month, oldest month first
      List<String> monthly = byMonth(condensed);
      while (rendered.length() > maxChars && !monthly.equals(condensed)) {
        condensed = summariseOldestMonth(condensed);
        rendered = render(condensed, dropped, entries);
      }
    }
    while (rendered.length() > maxChars && !condensed.isEmpty()) {
      condensed.remove(0);
      dropped++;
      rendered = render(condensed, dropped, entries);
    }
    if (rendered.length() > maxChars) {
      rendered = rendered.substring(0, maxChars - 1) + "\n";
    }
    return rendered;
  }

  /** The newest entry, or {@code null} when there is none. */
  public static String newest(String content) {
    List<String> blocks = blocks(content);
    for (int i = blocks.size() - 1; i >= 0; i--) {
      if (!blocks.get(i).startsWith(CONDENSED)) {
        return blocks.get(i);
      }
    }
    return null;
  }

  /** How many full (not condensed) entries the journal holds. */
  public static int entryCount(String content) {
    return (int) blocks(content).stream().filter(b -> !b.startsWith(CONDENSED)).count();
  }

  /** The {@code ## } blocks after the title. */
  static List<String> blocks(String content) {
    List<String> blocks = new ArrayList<>();
    if (content == null || content.isBlank()) {
      return blocks;
    }
    String text = "\n" + content.replace("\r\n", "\n");
    int at = text.indexOf("\n## ");
    while (at >= 0) {
      int next = text.indexOf("\n## ", at + 1);
      blocks.add(text.substring(at + 1, next < 0 ? text.length() : next).strip());
      at = next;
    }
    return blocks;
  }

  private static final java.util.regex.Pattern MONTH =
      java.util.regex.Pattern.compile("^- (\\d{4}-\\d{2})(?:-\\d{2}| \\()");

  /** The month a condensed or monthly line is of, or {@code null}. */
  private static String month(String line) {
    java.util.regex.Matcher m = MONTH.matcher(line);
    return m.find() ? m.group(1) : null;
  }

  /** Every month's lines summarised: what {@link #summariseOldestMonth} ends at. */
  private static List<String> byMonth(List<String> lines) {
    List<String> out = new ArrayList<>(lines);
    List<String> next = summariseOldestMonth(out);
    while (!next.equals(out)) {
      out = next;
      next = summariseOldestMonth(out);
    }
    return out;
  }

  /**
   * The lines with the oldest month that still has more than one line (or an unsummarised one)
   * summarised into one line: {@code - 2026-03 (12 entries): 5 changed MEMORY.md}.
   */
  static List<String> summariseOldestMonth(List<String> lines) {
    for (String line : lines) {
      String month = month(line);
      if (month == null) {
        continue;
      }
      List<String> of = lines.stream().filter(l -> month.equals(month(l))).toList();
      if (of.size() == 1 && of.get(0).startsWith("- " + month + " (")) {
        continue; // already one summary line
      }
      int entries = 0;
      int changed = 0;
      for (String l : of) {
        java.util.regex.Matcher summary =
            java.util.regex.Pattern.compile("^- \\d{4}-\\d{2} \\((\\d+) entries\\): (\\d+) changed")
                .matcher(l);
        if (summary.find()) {
          entries += Integer.parseInt(summary.group(1));
          changed += Integer.parseInt(summary.group(2));
        } else {
          entries++;
          if (l.contains("replaced") || l.contains("rewritten") || l.contains("merged")) {
            changed++;
          }
        }
      }
      List<String> out = new ArrayList<>();
      boolean placed = false;
      for (String l : lines) {
        if (month.equals(month(l))) {
          if (!placed) {
            out.add("- " + month + " (" + entries + " entries): " + changed + " changed memory");
            placed = true;
          }
        } else {
          out.add(l);
        }
      }
      return out;
    }
    return lines;
  }

  /** One line for an entry: its heading and its "Changed" line. */
  static String condense(String entry) {
    String[] lines = entry.split("\n");
    String heading = lines[0].replaceFirst("^## ", "").strip();
    String changed = "";
    for (String line : lines) {
      if (line.startsWith("- Changed:")) {
        changed = line.substring("- Changed:".length()).strip();
      }
    }
    String line = "- " + heading + (changed.isEmpty() ? "" : ": " + changed);
    return line.length() > 240 ? line.substring(0, 239) + "…" : line;
  }

  private static String render(List<String> condensed, int dropped, List<String> entries) {
    StringBuilder out = new StringBuilder(TITLE);
    if (!condensed.isEmpty() || dropped > 0) {
      out.append('\n').append(CONDENSED).append('\n');
      if (dropped > 0) {
        out.append("- (").append(dropped).append(" older entries dropped)\n");
      }
      for (String line : condensed) {
        out.append(line).append('\n');
      }
    }
    for (String entry : entries) {
      out.append('\n').append(entry).append('\n');
    }
    return out.toString();
  }

  private static int leadingNumber(String text) {
    int end = 0;
    while (end < text.length() && Character.isDigit(text.charAt(end))) {
      end++;
    }
    return end == 0 ? 0 : Integer.parseInt(text.substring(0, end));
  }
}
