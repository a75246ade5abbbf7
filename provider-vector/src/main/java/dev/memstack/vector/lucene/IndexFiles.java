package dev.memstack.vector.lucene;

import dev.memstack.support.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The files of the store root: {@code CURRENT}, which names the live index directory ({@code
 * index-<n>}), and the clean-up of other index generations and their logs.
 */
final class IndexFiles {

  static final String CURRENT = "CURRENT";

  private IndexFiles() {}

  /** The index {@code CURRENT} names, {@code index-1} when there is none yet. */
  static String readCurrent(Path root) throws IOException {
    Path currentFile = root.resolve(CURRENT);
    String name =
        Files.exists(currentFile)
            ? Files.readString(currentFile, StandardCharsets.UTF_8).trim()
            : "index-1";
    if (!name.matches("index-\\d+")) {
      throw new IllegalStateException(
          "embedded vector store: " + currentFile + " is corrupt (" + name + ")");
    }
    return name;
  }

  static boolean hasCurrent(Path root) {
    return Files.exists(root.resolve(CURRENT));
  }

  /**
   * Points {@code CURRENT} at index {@code name}: written aside, forced, moved into place ({@link
   * AtomicFiles}).
   */
  static void writeCurrent(Path root, String name) throws IOException {
    AtomicFiles.writeString(root.resolve(CURRENT), name);
  }

  /** Deletes index directories and logs other than those of {@code keep}. */
  static void deleteOtherIndexes(Path root, String keep) throws IOException {
    AtomicFiles.deleteLeftovers(root.resolve(CURRENT));
    try (Stream<Path> entries = Files.list(root)) {
      for (Path entry : entries.toList()) {
        String name = entry.getFileName().toString();
        if (name.startsWith("index-") && !name.equals(keep) && !name.startsWith(keep + ".")) {
          if (Files.isDirectory(entry)) {
            deleteTree(entry);
          } else if (name.contains(".translog-")) {
            Files.deleteIfExists(entry);
          }
        }
      }
    }
  }

  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
