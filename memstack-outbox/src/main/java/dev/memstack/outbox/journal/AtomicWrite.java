package dev.memstack.outbox.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a small file atomically: written to a temporary file, forced, renamed over the old one,
 * folder forced; a reader sees the old or the new content, never a mix.
 */
final class AtomicWrite {

  private AtomicWrite() {}

  /** Replaces {@code dir/name} with {@code content}; forces to disk when {@code fsync}. */
  static void replace(Path dir, String name, byte[] content, boolean fsync) throws IOException {
    Path target = dir.resolve(name);
    Path temporary = dir.resolve(name + ".tmp");
    try (FileChannel channel =
        FileChannel.open(
            temporary,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ByteBuffer bytes = ByteBuffer.wrap(content);
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      if (fsync) {
        channel.force(true);
      }
    }
    try {
      Files.move(
          temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
    }
    if (fsync) {
      forceFolder(dir);
    }
  }

  /** Forces a folder's entries to disk where the file system can. */
  static void forceFolder(Path dir) {
    try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
      directory.force(true);
    } catch (IOException e) {
      // not every file system can sync a directory
    }
  }
}
