package dev.memstack.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Keeps the code quoted in {@code docs/} equal to code the build compiles and runs: a region of a
 * source file between {@code // tag::NAME[]} and {@code // end::NAME[]}, without its common
 * indentation, must appear verbatim in the document.
 */
public final class DocSnippets {

  private DocSnippets() {}

  /** The repository root (the build passes {@code memstack.root}). */
  public static Path root() {
    return Path.of(System.getProperty("memstack.root", "..")).toAbsolutePath().normalize();
  }

  /** Fails unless {@code document} (relative to the root) quotes the region {@code tag}. */
  public static void assertQuoted(String document, Path source, String tag) {
    String region = region(source, tag);
    String text = read(root().resolve(document));
    assertThat(text)
        .as("%s quotes the region '%s' of %s; copy it again:%n%s", document, tag, source, region)
        .contains(region);
  }

  /** The lines between the tag's markers, without their common indentation. */
  public static String region(Path source, String tag) {
    List<String> lines = read(source).lines().toList();
    int start = indexOf(lines, "// tag::" + tag + "[]", source);
    int end = indexOf(lines, "// end::" + tag + "[]", source);
    List<String> body = lines.subList(start + 1, end);
    while (!body.isEmpty() && body.get(body.size() - 1).isBlank()) {
      body = body.subList(0, body.size() - 1);
    }
    int indent =
        body.stream()
            .filter(line -> !line.isBlank())
            .mapToInt(line -> line.length() - line.stripLeading().length())
            .min()
            .orElse(0);
    StringBuilder text = new StringBuilder();
    for (String line : body) {
      text.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
    }
    return text.toString();
  }

  private static int indexOf(List<String> lines, String marker, Path source) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().equals(marker)) {
        return i;
      }
    }
    throw new AssertionError("no " + marker + " in " + source);
  }

  private static String read(Path path) {
    try {
      return Files.readString(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
