package dev.memstack.builtin.memory;

import dev.memstack.builtin.workspace.WorkspacePath;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The structured entries of {@code PROFILE.md} and {@code MEMORY.md}: an entry is a top-level
 * bullet (a line that starts with {@code "- "} or {@code "* "} in its first column) together with
 * the lines below it that are indented (its continuation lines and nested bullets); a blank line,
 * an unindented line or the next top-level bullet ends it. Its section is the text of the last
 * {@code "## "} heading above it ({@code ""} before the first). Everything else (headings, prose,
 * blank lines) is text that is kept as it is. Stateless; a parsed {@link Document} is immutable.
 */
public final class StructuredEntries {

  /** The files whose bullets are structured entries. */
  public static final List<WorkspacePath> FILES =
      List.of(WorkspacePath.of("PROFILE.md"), WorkspacePath.of("MEMORY.md"));

  private static final Pattern DATE = Pattern.compile("\\b(\\d{4}-\\d{2}-\\d{2})\\b");

  private StructuredEntries() {}

  /** Whether {@code path} is one of {@link #FILES}. */
  public static boolean structured(WorkspacePath path) {
    return FILES.contains(path);
  }

  /**
   * One entry.
   *
   * @param section the {@code ## } heading it is under, {@code ""} before the first
   * @param text its lines (the bullet marker included), without the final line break
   * @param index its position among the file's entries, from 0
   */
  public record Entry(String section, String text, int index) {

    /** The text without the bullet marker, continuation lines unindented by up to two spaces. */
    public String body() {
      String[] lines = text.split("\n", -1);
      StringBuilder out = new StringBuilder(lines[0].substring(2).strip());
      for (int i = 1; i < lines.length; i++) {
        String line = lines[i];
        out.append('\n').append(line.startsWith("  ") ? line.substring(2) : line.strip());
      }
      return out.toString();
    }

    /** The latest ISO date ({@code YYYY-MM-DD}) the entry carries, or {@code null}. */
    public LocalDate date() {
      LocalDate latest = null;
      Matcher matcher = DATE.matcher(text);
      while (matcher.find()) {
        try {
          LocalDate date = LocalDate.parse(matcher.group(1));
          if (latest == null || date.isAfter(latest)) {
            latest = date;
          }
        } catch (DateTimeParseException e) {
          // not a date after all (2026-13-45)
        }
      }
      return latest;
    }
  }

  /** A run of lines of a file: either one entry or text that is not an entry. */
  private record Segment(Entry entry, String text) {}

  /** A parsed file: its entries and the text around them, in file order. */
  public static final class Document {

    private final List<Segment> segments;
    private final List<Entry> entries;
    private final boolean finalNewline;

    private Document(List<Segment> segments, boolean finalNewline) {
      this.segments = List.copyOf(segments);
      this.entries =
          this.segments.stream().map(Segment::entry).filter(java.util.Objects::nonNull).toList();
      this.finalNewline = finalNewline;
    }

    /** The entries in file order. */
    public List<Entry> entries() {
      return entries;
    }

    /** The sections that hold entries, in file order. */
    public List<String> sections() {
      return entries.stream().map(Entry::section).distinct().toList();
    }

    /** The file with only the entries whose index is in {@code keep}. */
    public String keep(Set<Integer> keep) {
      return render(entry -> keep.contains(entry.index()) ? entry.text() : null);
    }

    /**
     * The file with entry {@code index} replaced by {@code text} (its lines, the bullet marker
     * included), or left out when {@code text} is {@code null}; everything else stays.
     */
    public String with(int index, String text) {
      return render(entry -> entry.index() == index ? text : entry.text());
    }

    /** The file with each entry's lines as {@code lines} gives them ({@code null}: left out). */
    private String render(java.util.function.Function<Entry, String> lines) {
      StringBuilder out = new StringBuilder();
      for (Segment segment : segments) {
        String text = segment.entry() == null ? segment.text() : lines.apply(segment.entry());
        if (text != null) {
          append(out, text);
        }
      }
      return finish(out);
    }

    /**
     * The file with its entries replaced: the new entries of a section go where the section's first
     * entry was, in the order given, and the section's other entries are dropped; headings and
     * other text stay. A section missing from {@code bySection} loses its entries.
     *
     * @param bySection new entry bodies per section (bodies without the bullet marker)
     */
    public String replaceEntries(Map<String, List<String>> bySection) {
      StringBuilder out = new StringBuilder();
      Set<String> placed = new HashSet<>();
      for (Segment segment : segments) {
        if (segment.entry() == null) {
          append(out, segment.text());
          continue;
        }
        String section = segment.entry().section();
        if (placed.add(section)) {
          for (String body : bySection.getOrDefault(section, List.of())) {
            append(out, bullet(body));
          }
        }
      }
      return finish(out);
    }

    private static void append(StringBuilder out, String lines) {
      out.append(lines).append('\n');
    }

    private String finish(StringBuilder out) {
      if (!finalNewline && out.length() > 0) {
        out.setLength(out.length() - 1);
      }
      return out.toString();
    }
  }

  /** {@code body} as an entry: {@code "- "} first, continuation lines indented by two spaces. */
  public static String bullet(String body) {
    String text = body.strip();
    if (text.startsWith("- ") || text.startsWith("* ")) {
      text = text.substring(2).strip();
    }
    String[] lines = text.split("\\R", -1);
    StringBuilder out = new StringBuilder("- ").append(lines[0].strip());
    for (int i = 1; i < lines.length; i++) {
      if (!lines[i].isBlank()) {
        out.append("\n  ").append(lines[i].strip());
      }
    }
    return out.toString();
  }

  /** Parses a file's content. */
  public static Document parse(String content) {
    String text = content.replace("\r\n", "\n");
    boolean finalNewline = text.endsWith("\n");
    if (finalNewline) {
      text = text.substring(0, text.length() - 1);
    }
    List<Segment> segments = new ArrayList<>();
    if (text.isEmpty() && !finalNewline) {
      return new Document(segments, false);
    }
    String[] lines = text.split("\n", -1);
    String section = "";
    StringBuilder plain = new StringBuilder();
    StringBuilder entry = null;
    int index = 0;
    for (String line : lines) {
      boolean bullet = line.startsWith("- ") || line.startsWith("* ");
      boolean continuation =
          entry != null && !line.isBlank() && (line.startsWith(" ") || line.startsWith("\t"));
      if (continuation) {
        entry.append('\n').append(line);
        continue;
      }
      if (entry != null) {
        segments.add(new Segment(new Entry(section, entry.toString(), index++), null));
        entry = null;
      }
      if (bullet) {
        flush(segments, plain);
        entry = new StringBuilder(line);
        continue;
      }
      if (line.startsWith("## ")) {
        section = line.substring(3).strip();
      }
      if (plain.length() == 0 && line.isEmpty()) {
        segments.add(new Segment(null, "")); // a blank line of its own
        continue;
      }
      if (plain.length() > 0) {
        plain.append('\n');
      }
      plain.append(line);
    }
    if (entry != null) {
      segments.add(new Segment(new Entry(section, entry.toString(), index), null));
    }
    flush(segments, plain);
    return new Document(segments, finalNewline);
  }

  private static void flush(List<Segment> segments, StringBuilder plain) {
    if (plain.length() > 0) {
      segments.add(new Segment(null, plain.toString()));
      plain.setLength(0);
    }
  }
}
