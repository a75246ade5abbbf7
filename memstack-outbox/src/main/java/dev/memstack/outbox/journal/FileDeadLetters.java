package dev.memstack.outbox.journal;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file journal's dead letters: one file per dead letter in {@code <outbox>/dead-letters/},
 * named by its id, holding its description and its record; each written atomically ({@link
 * AtomicWrite}). An unreadable file is logged and left out of the list (and left on disk for an
 * operator).
 */
final class FileDeadLetters implements DeadLetterStore {

  private static final Logger log = LoggerFactory.getLogger(FileDeadLetters.class);

  private static final String MAGIC = "memstack-dead-letter 1";
  private static final String SUFFIX = ".letter";

  private record Kept(DeadLetter letter, byte[] record) {}

  private final Path dir;
  private final boolean fsync;

  FileDeadLetters(Path dir, boolean fsync) throws IOException {
    this.dir = Files.createDirectories(dir);
    this.fsync = fsync;
  }

  @Override
  public synchronized void put(DeadLetter letter, byte[] record) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(512 + record.length);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      writeString(out, MAGIC);
      writeString(out, letter.id());
      writeString(out, letter.provider());
      out.writeLong(letter.position());
      writeString(out, letter.owner());
      writeString(out, letter.agent());
      writeString(out, letter.conversationId());
      writeString(out, letter.turnId());
      out.writeLong(letter.acceptedAt().toEpochMilli());
      out.writeLong(letter.parkedAt().toEpochMilli());
      out.writeInt(letter.attempts());
      writeString(out, letter.reason());
      writeString(out, letter.detail());
      out.writeInt(record.length);
      out.write(record);
    }
    AtomicWrite.replace(dir, letter.id() + SUFFIX, bytes.toByteArray(), fsync);
  }

  @Override
  public synchronized List<DeadLetter> list() throws IOException {
    List<DeadLetter> all = new ArrayList<>();
    for (Path file : files()) {
      read(file).ifPresent(kept -> all.add(kept.letter()));
    }
    all.sort(DeadLetter.PARKED_ORDER);
    return all;
  }

  @Override
  public synchronized Optional<byte[]> record(String id) throws IOException {
    if (!DeadLetter.isId(id)) {
      return Optional.empty();
    }
    return read(dir.resolve(id + SUFFIX)).map(Kept::record);
  }

  @Override
  public synchronized boolean remove(String id) throws IOException {
    if (!DeadLetter.isId(id)) {
      return false;
    }
    boolean removed = Files.deleteIfExists(dir.resolve(id + SUFFIX));
    if (removed && fsync) {
      AtomicWrite.forceFolder(dir);
    }
    return removed;
  }

  @Override
  public synchronized int removeOwner(String owner) throws IOException {
    int removed = 0;
    for (Path file : files()) {
      Optional<Kept> kept = read(file);
      if (kept.isPresent() && kept.get().letter().owner().equals(owner)) {
        Files.deleteIfExists(file);
        removed++;
      }
    }
    if (removed > 0 && fsync) {
      AtomicWrite.forceFolder(dir);
    }
    return removed;
  }

  private List<Path> files() throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
      stream.forEach(files::add);
    }
    return files;
  }

  private Optional<Kept> read(Path file) throws IOException {
    try (InputStream stream = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(stream)) {
      if (!MAGIC.equals(readString(in))) {
        throw new IOException("not a dead-letter file");
      }
      DeadLetter letter =
          new DeadLetter(
              readString(in),
              readString(in),
              in.readLong(),
              readString(in),
              readString(in),
              readString(in),
              readString(in),
              Instant.ofEpochMilli(in.readLong()),
              Instant.ofEpochMilli(in.readLong()),
              in.readInt(),
              readString(in),
              readString(in));
      int length = in.readInt();
      if (length < 0 || length > 64 * 1024 * 1024) {
        throw new IOException("a record of " + length + " bytes");
      }
      return Optional.of(new Kept(letter, in.readNBytes(length)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | IllegalArgumentException | UncheckedIOException e) {
      log.warn("Ignoring the unreadable dead letter {} ({})", file, e.toString());
      return Optional.empty();
    }
  }

  private static void writeString(DataOutputStream out, String value) throws IOException {
    if (value == null) {
      out.writeInt(-1);
      return;
    }
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static String readString(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length == -1) {
      return null;
    }
    if (length < 0 || length > 1024 * 1024) {
      throw new IOException("a string of " + length + " bytes");
    }
    byte[] bytes = in.readNBytes(length);
    if (bytes.length != length) {
      throw new IOException("truncated");
    }
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
