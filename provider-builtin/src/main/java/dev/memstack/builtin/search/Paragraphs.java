package dev.memstack.builtin.search;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How a file is cut for the keyword index: into paragraphs (runs of non-blank lines, at most
 * {@value #CHUNK_MAX_LINES} lines or {@value #CHUNK_MAX_CHARS} characters), HTML comments removed.
 */
public final class Paragraphs {

  public static final int CHUNK_MAX_LINES = 12;
  public static final int CHUNK_MAX_CHARS = 1000;

  private static final Pattern HTML_COMMENT = Pattern.compile("<!--.*?-->");

  /** One paragraph and its first line (1-based). */
  public record Chunk(int line, String text) {}

  private Paragraphs() {}

  /**
   * Paragraphs of {@code content}: runs of non-blank lines, HTML comments removed, split if long.
   */
  public static List<Chunk> chunks(String content) {
    List<Chunk> chunks = new ArrayList<>();
    String[] lines = content.split("\n", -1);
    StringBuilder text = new StringBuilder();
    int start = 0;
    int count = 0;
    for (int i = 0; i < lines.length; i++) {
      String line =
          HTML_COMMENT.matcher(lines[i]).replaceAll("").replace('\0', ' ').stripTrailing();
      if (line.isBlank()) {
        if (count > 0) {
          chunks.add(new Chunk(start, text.toString()));
          text.setLength(0);
          count = 0;
        }
        continue;
      }
      if (count > 0
          && (count >= CHUNK_MAX_LINES || text.length() + line.length() + 1 > CHUNK_MAX_CHARS)) {
        chunks.add(new Chunk(start, text.toString()));
        text.setLength(0);
        count = 0;
      }
      if (count == 0) {
        start = i + 1;
      } else {
        text.append('\n');
      }
      text.append(line);
      count++;
    }
    if (count > 0) {
      chunks.add(new Chunk(start, text.toString()));
    }
    return chunks;
  }
}
