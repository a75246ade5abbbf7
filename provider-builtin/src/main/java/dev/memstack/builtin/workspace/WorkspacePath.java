package dev.memstack.builtin.workspace;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A validated workspace file name relative to its bucket, such as {@code MEMORY.md} or {@code
 * memory/2026-04-01.md}. The checks are the path sandbox of the workspace: only {@code .md} files;
 * no absolute paths, no {@code .} or {@code ..} segments (also not percent-encoded, such as {@code
 * %2e%2e}), no backslashes, no NUL or other control characters, no hidden names (a segment that
 * starts with a dot), no characters that are unsafe on common file systems ({@code <>:"|?*}), at
 * most {@value #MAX_LENGTH} characters, {@value #MAX_SEGMENT_LENGTH} per segment and {@value
 * #MAX_DEPTH} segments deep.
 *
 * @param value the name, {@code /}-separated, never {@code null}
 */
public record WorkspacePath(String value) implements Comparable<WorkspacePath> {

  /** Longest accepted name, in characters. */
  public static final int MAX_LENGTH = 200;

  /** Longest accepted segment (directory or file name), in characters. */
  public static final int MAX_SEGMENT_LENGTH = 100;

  /** Most segments in a name. */
  public static final int MAX_DEPTH = 6;

  private static final Pattern PERCENT_ESCAPE = Pattern.compile("%[0-9A-Fa-f]{2}");
  private static final Pattern DAILY_NOTE = Pattern.compile("memory/(\\d{4}-\\d{2}-\\d{2})\\.md");
  private static final Pattern ENTRY_HISTORY =
      Pattern.compile("history/(archive|\\d{4}-\\d{2})\\.md");
  private static final String UNSAFE = "<>:\"|?*";

  /**
   * @throws InvalidWorkspacePathException naming what is wrong with the name
   */
  public WorkspacePath {
    check(value);
  }

  /** Same as the constructor. */
  public static WorkspacePath of(String value) {
    return new WorkspacePath(value);
  }

  /** The daily note of {@code date}: {@code memory/YYYY-MM-DD.md}. */
  public static WorkspacePath dailyNote(LocalDate date) {
    return new WorkspacePath("memory/" + date + ".md");
  }

  /** The {@code /}-separated segments. */
  public List<String> segments() {
    return List.of(value.split("/"));
  }

  /** Whether the file sits at the root of its bucket (no directory). */
  public boolean atRoot() {
    return value.indexOf('/') < 0;
  }

  /** The last segment. */
  public String fileName() {
    return value.substring(value.lastIndexOf('/') + 1);
  }

  /**
   * Whether this is a file of dreaming reports ({@code dreams/...}): kept out of keyword search, as
   * the reports repeat what memory files say.
   */
  public boolean isDreamReport() {
    return value.startsWith("dreams/");
  }

  /**
   * Whether this is one of the files the memory-admin tools keep beside an owner's or a team's
   * entries: the history log {@code history/YYYY-MM.md} or the archive {@code history/archive.md}.
   * Hidden from the file tools, kept out of keyword search and out of the prompt.
   */
  public boolean isEntryHistory() {
    return ENTRY_HISTORY.matcher(value).matches();
  }

  /**
   * Whether keyword search leaves the file out: dreaming reports ({@link #isDreamReport()}) and the
   * entries' history and archive ({@link #isEntryHistory()}) repeat what memory files say, or said.
   */
  public boolean isKeptOutOfSearch() {
    return isDreamReport() || isEntryHistory();
  }

  /** Whether this is a daily note {@code memory/YYYY-MM-DD.md} with a real date. */
  public boolean isDailyNote() {
    return dailyNoteDate() != null;
  }

  /** The date of a daily note, or {@code null} when this is not one. */
  public LocalDate dailyNoteDate() {
    var matcher = DAILY_NOTE.matcher(value);
    if (!matcher.matches()) {
      return null;
    }
    try {
      return LocalDate.parse(matcher.group(1));
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** Whether the name starts with {@code prefix} (an empty prefix matches everything). */
  public boolean startsWith(String prefix) {
    return value.startsWith(prefix);
  }

  @Override
  public int compareTo(WorkspacePath other) {
    return value.compareTo(other.value);
  }

  @Override
  public String toString() {
    return value;
  }

  private static void check(String value) {
    if (value == null || value.isEmpty()) {
      throw new InvalidWorkspacePathException("is required");
    }
    if (value.length() > MAX_LENGTH) {
      throw new InvalidWorkspacePathException(
          "is longer than " + MAX_LENGTH + " characters (" + value.length() + ")");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
        throw new InvalidWorkspacePathException("must not contain NUL or control characters");
      }
      if (c == '\\') {
        throw new InvalidWorkspacePathException("must not contain backslashes");
      }
      if (UNSAFE.indexOf(c) >= 0) {
        throw new InvalidWorkspacePathException("must not contain any of " + UNSAFE);
      }
    }
    if (value.startsWith("/")) {
      throw new InvalidWorkspacePathException("must be relative, not an absolute path");
    }
    if (PERCENT_ESCAPE.matcher(value).find()) {
      throw new InvalidWorkspacePathException(
          "must not contain percent-encoded characters such as %2e or %2f");
    }
    String[] segments = value.split("/", -1);
    if (segments.length > MAX_DEPTH) {
      throw new InvalidWorkspacePathException("is nested more than " + MAX_DEPTH + " levels deep");
    }
    for (String segment : segments) {
      if (segment.isEmpty()) {
        throw new InvalidWorkspacePathException("must not contain empty segments ('//')");
      }
      if (segment.equals(".") || segment.equals("..")) {
        throw new InvalidWorkspacePathException("must not contain '.' or '..' segments");
      }
      if (segment.startsWith(".")) {
        throw new InvalidWorkspacePathException("must not contain hidden names (leading '.')");
      }
      if (segment.isBlank() || segment.endsWith(" ") || segment.startsWith(" ")) {
        throw new InvalidWorkspacePathException(
            "must not have segments that start or end with a space");
      }
      if (segment.length() > MAX_SEGMENT_LENGTH) {
        throw new InvalidWorkspacePathException(
            "has a segment longer than " + MAX_SEGMENT_LENGTH + " characters");
      }
    }
    if (!value.endsWith(".md")) {
      throw new InvalidWorkspacePathException(
          "must end with .md (only Markdown files are allowed)");
    }
  }
}
