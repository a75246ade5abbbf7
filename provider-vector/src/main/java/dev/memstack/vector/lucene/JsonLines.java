package dev.memstack.vector.lucene;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the append-only JSON-lines files of the embedded store (the translog, the feedback counts):
 * every complete line in order; blank lines and a line cut short by a crash (never acknowledged, so
 * never relied on) are skipped.
 */
final class JsonLines {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private JsonLines() {}

  /** The lines of {@code file} read as {@code type}; none when the file does not exist. */
  static <T> List<T> read(Path file, TypeReference<T> type) throws IOException {
    List<T> lines = new ArrayList<>();
    if (!Files.exists(file)) {
      return lines;
    }
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String text;
      while ((text = reader.readLine()) != null) {
        if (text.isBlank()) {
          continue;
        }
        try {
          lines.add(JSON.readValue(text, type));
        } catch (JacksonException e) {
          // cut short by a crash: never acknowledged
        }
      }
    }
    return lines;
  }
}
