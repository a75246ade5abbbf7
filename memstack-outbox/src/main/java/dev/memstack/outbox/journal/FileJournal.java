package dev.memstack.outbox.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable {@link Journal}: records in segment files ({@link SegmentLog}) and one cursor file
 * per lane ({@link CursorStore}) and one file per dead letter ({@code dead-letters/}) under one
 * folder ({@code memstack.outbox.dir}, default {@code <memstack.data-dir>/outbox}), which one
 * process at a time may open (a {@code lock} file enforces it). Records are forced to disk before
 * they count as durable unless {@code memstack.outbox.fsync} is off; concurrent appenders share one
 * {@code fdatasync}. A torn last record (a crash in the middle of a write) is truncated at open; a
 * damaged one is logged and skipped. An erased owner's turns are rewritten out of their segments
 * ({@link #expunge}).
 */
public final class FileJournal implements Journal {

  private static final Logger log = LoggerFactory.getLogger(FileJournal.class);

  private final Path dir;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final CursorStore cursorStore;
  private final Map<String, Cursor> cursors;
  private final SegmentLog segments_;
  private final FileDeadLetters deadLetters;
  private List<Entry> recovered = new ArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  private FileJournal(Path dir, long segmentSize, boolean fsync) throws IOException {
    this.dir = dir;
    Files.createDirectories(dir);
    this.lockChannel =
        FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock acquired;
    try {
      acquired = lockChannel.tryLock();
    } catch (OverlappingFileLockException e) {
      acquired = null;
    }
    if (acquired == null) {
      lockChannel.close();
      throw new IllegalStateException(
          "the turn outbox at "
              + dir
              + " is in use by another host process (memstack.outbox.dir / memstack.data-dir)");
    }
    this.lock = acquired;
    try {
      this.cursorStore = new CursorStore(dir.resolve("cursors"), fsync);
      this.cursors = Map.copyOf(cursorStore.loadAll());
      long furthest = cursors.values().stream().mapToLong(Cursor::next).max().orElse(0);
      this.segments_ = SegmentLog.open(dir, segmentSize, fsync, furthest, this::recover);
      this.deadLetters = new FileDeadLetters(dir.resolve("dead-letters"), fsync);
    } catch (IOException | RuntimeException e) {
      lock.release();
      lockChannel.close();
      throw e;
    }
  }

  /**
   * Opens (or creates) the journal in {@code dir}.
   *
   * @throws UncheckedIOException when it cannot be read or created
   * @throws IllegalStateException when another process has it open
   */
  public static FileJournal open(Path dir, long segmentSize, boolean fsync) {
    Objects.requireNonNull(dir, "dir");
    Path folder = dir.toAbsolutePath().normalize();
    try {
      return new FileJournal(folder, segmentSize, fsync);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the turn outbox at " + folder + ": " + e, e);
    }
  }

  private void recover(long position, SegmentLog.Location at, ByteBuffer body) {
    try {
      JournalRecord.Header header = JournalRecord.decodeHeader(body);
      recovered.add(new Entry(position, header, at));
    } catch (CorruptRecordException e) {
      log.error("Skipping outbox record {}: {}", position, e.getMessage());
    }
  }

  /** The folder of the journal. */
  public Path dir() {
    return dir;
  }

  @Override
  public boolean persistent() {
    return true;
  }

  @Override
  public String describe() {
    return dir.toString();
  }

  @Override
  public Map<String, Cursor> cursors() {
    return cursors;
  }

  @Override
  public void replay(Consumer<Entry> sink) {
    List<Entry> entries = recovered;
    recovered = List.of();
    entries.forEach(sink);
  }

  @Override
  public Entry append(JournalRecord.Header header, byte[] body) throws IOException {
    SegmentLog.Appended appended = segments_.append(body);
    return new Entry(appended.position(), header, appended.at());
  }

  @Override
  public void awaitDurable(long position) throws IOException {
    segments_.awaitDurable(position);
  }

  @Override
  public long durablePosition() {
    return segments_.durablePosition();
  }

  @Override
  public long nextPosition() {
    return segments_.nextPosition();
  }

  @Override
  public JournalRecord read(Entry entry) throws IOException {
    if (!(entry.locator() instanceof SegmentLog.Location at)) {
      throw new IllegalArgumentException("not an entry of this journal: " + entry);
    }
    return JournalRecord.decode(segments_.read(entry.position(), at));
  }

  /** Rewrites the segments that hold turns of {@code owner} with holes in their place. */
  @Override
  public int expunge(String owner, long before) throws IOException {
    Objects.requireNonNull(owner, "owner");
    return segments_.expunge(before, body -> JournalRecord.isTurnOf(body, owner));
  }

  @Override
  public void saveCursor(String lane, Cursor cursor) throws IOException {
    if (closed.get()) {
      throw new IllegalStateException("the turn journal at " + dir + " is closed");
    }
    cursorStore.save(lane, cursor);
  }

  @Override
  public DeadLetterStore deadLetters() {
    return deadLetters;
  }

  @Override
  public long sealedBefore() {
    return segments_.activeSegmentStart();
  }

  @Override
  public int compact(long position) {
    return segments_.deleteBefore(position);
  }

  @Override
  public long bytes() {
    return segments_.bytes();
  }

  @Override
  public int segments() {
    return segments_.segments();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    segments_.close();
    try {
      lock.release();
      lockChannel.close();
    } catch (IOException e) {
      log.warn("Could not release the outbox lock at {}: {}", dir, e.toString());
    }
  }
}
