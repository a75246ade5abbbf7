package dev.memstack.builtin.store.files;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Predicate;

/** Removing directory trees. */
final class FileTrees {

  private FileTrees() {}

  /**
   * Deletes everything below {@code dir} except the files {@code kept} accepts (which must lie
   * directly in {@code dir}); {@code dir} itself stays.
   */
  static void deleteContents(Path dir, Predicate<Path> kept) throws IOException {
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            if (!kept.test(file)) {
              Files.delete(file);
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
            if (!d.equals(dir)) {
              Files.delete(d);
            }
            return FileVisitResult.CONTINUE;
          }
        });
  }

  /** Deletes {@code dir} and everything below it. */
  static void delete(Path dir) throws IOException {
    deleteContents(dir, file -> false);
    Files.delete(dir);
  }
}
