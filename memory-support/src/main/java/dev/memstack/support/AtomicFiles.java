package dev.memstack.support;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Arrays;
import java.util.Set;
import java.util.UUID;

/**
 * Crash-safe file writing: a hidden temporary file in the target's directory, flushed to disk, read
 * back and compared, then moved over the target in one atomic step, and the directory flushed. A
 * crash leaves either the old or the new file, never a torn one; leftover temporary files are
 * hidden ({@code .name.<random>.tmp}); whoever owns the directory removes them when it next loads
 * it. One helper for every module that writes files (plugins bundle this library).
 */
public final class AtomicFiles {

  public static final String TEMP_SUFFIX = ".tmp";
  public static final String BACKUP_SUFFIX = ".bak";

  private AtomicFiles() {}

  /** Writes {@code bytes} to a new hidden temporary file beside {@code target} and verifies it. */
  public static Path writeTemp(Path target, byte[] bytes, Instant modified) throws IOException {
    return createTemp(target, bytes, modified);
  }

  private static Path createTemp(
      Path target, byte[] bytes, Instant modified, FileAttribute<?>... attributes)
      throws IOException {
    Path temp = sibling(target, TEMP_SUFFIX);
    try (FileChannel channel =
        FileChannel.open(
            temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), attributes)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(true);
    }
    try {
      byte[] back = Files.readAllBytes(temp);
      if (!Arrays.equals(back, bytes)) {
        throw new IOException(
            "read-back of " + temp.getFileName() + " differs from what was written");
      }
      Files.setLastModifiedTime(temp, FileTime.from(modified));
      return temp;
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
  }

  /** Writes {@code bytes} to {@code target} atomically (temp, flush, verify, move, flush dir). */
  public static void write(Path target, byte[] bytes, Instant modified) throws IOException {
    replace(target, writeTemp(target, bytes, modified));
  }

  /**
   * Writes {@code bytes} to {@code target} atomically as a file only its owner may read and write:
   * on a POSIX file system the temporary file is created {@code rw-------} before a byte goes into
   * it, so no copy of the content is ever readable by others (elsewhere the file system's defaults
   * apply).
   */
  public static void writeOwnerOnly(Path target, byte[] bytes) throws IOException {
    boolean posix = target.getFileSystem().supportedFileAttributeViews().contains("posix");
    FileAttribute<?>[] attributes =
        posix
            ? new FileAttribute<?>[] {
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))
            }
            : new FileAttribute<?>[0];
    replace(target, createTemp(target, bytes, Instant.now(), attributes));
  }

  private static void replace(Path target, Path temp) throws IOException {
    try {
      move(temp, target);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    syncDirectory(target.getParent());
  }

  /** A hidden sibling name of {@code target} that does not exist yet. */
  public static Path sibling(Path target, String suffix) {
    String name = target.getFileName().toString();
    return target.resolveSibling(
        "." + name + "." + UUID.randomUUID().toString().substring(0, 8) + suffix);
  }

  /**
   * Writes {@code bytes} to {@code target} atomically with the current time as its modification
   * time.
   */
  public static void write(Path target, byte[] bytes) throws IOException {
    write(target, bytes, Instant.now());
  }

  /** Writes {@code lines} as UTF-8 to {@code target} atomically, each ended by {@code \n}. */
  public static void writeLines(Path target, Iterable<String> lines) throws IOException {
    StringBuilder text = new StringBuilder();
    for (String line : lines) {
      text.append(line).append('\n');
    }
    writeString(target, text.toString());
  }

  /**
   * Opens a file its owner rewrites atomically: deletes what a crash left beside it ({@link
   * #deleteLeftovers}) and reads it as UTF-8.
   *
   * @return its text, or empty when there is no file yet
   */
  public static java.util.Optional<String> load(Path target) throws IOException {
    deleteLeftovers(target);
    return Files.exists(target)
        ? java.util.Optional.of(Files.readString(target, java.nio.charset.StandardCharsets.UTF_8))
        : java.util.Optional.empty();
  }

  /**
   * Deletes the temporary files a crash left beside {@code target} ({@code .name.<random>.tmp}).
   * Call it where the owner of the file loads it, before anything writes it again.
   */
  public static void deleteLeftovers(Path target) throws IOException {
    Path directory = target.toAbsolutePath().getParent();
    if (directory == null || !Files.isDirectory(directory)) {
      return;
    }
    String prefix = "." + target.getFileName() + ".";
    try (java.util.stream.Stream<Path> entries = Files.list(directory)) {
      for (Path entry : entries.toList()) {
        String name = entry.getFileName().toString();
        if (name.startsWith(prefix) && name.endsWith(TEMP_SUFFIX)) {
          Files.deleteIfExists(entry);
        }
      }
    }
  }

  /** Writes {@code text} as UTF-8 to {@code target} atomically. */
  public static void writeString(Path target, String text) throws IOException {
    write(target, text.getBytes(java.nio.charset.StandardCharsets.UTF_8), Instant.now());
  }

  /**
   * Moves atomically, replacing the target (a plain replacing move where atomic moves are
   * unsupported).
   */
  public static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /**
   * Creates the folder of {@code target} (and its parents) when it is missing. Asked first, as
   * {@link Files#createDirectories} throws and catches an exception inside when the folder exists:
   * for a file written on every turn.
   */
  public static void createParentDirectories(Path target) throws IOException {
    Path parent = target.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      Files.createDirectories(parent);
    }
  }

  /** Flushes a directory's entries to disk where the platform allows it. */
  public static void syncDirectory(Path directory) {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // Some platforms cannot open or flush a directory; the rename itself is still atomic.
    }
  }
}
