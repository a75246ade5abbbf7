package dev.memstack.outbox.journal;

import static dev.memstack.outbox.journal.SegmentFrames.FRAME_HEADER_BYTES;
import static dev.memstack.outbox.journal.SegmentFrames.MAGIC;
import static dev.memstack.outbox.journal.SegmentFrames.MAX_BODY_BYTES;
import static dev.memstack.outbox.journal.SegmentFrames.SEGMENT_HEADER_BYTES;
import static dev.memstack.outbox.journal.SegmentFrames.closeQuietly;
import static dev.memstack.outbox.journal.SegmentFrames.crc;
import static dev.memstack.outbox.journal.SegmentFrames.readFully;
import static dev.memstack.outbox.journal.SegmentFrames.writeFully;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An append-only log of record bodies in segment files {@code <20-digit first position>.seg} under
 * one folder.
 *
 * <p>One class on purpose (~640 lines): appends, the group commit, recovery and segment rolling
 * share one lock, the current channel and the segment map; the expunge rewrite is apart already.
 *
 * <p>A segment starts with an 8-byte magic number; each record is framed as {@code [body length:
 * int][CRC-32 of the body: int][position: long][body]}, positions counting records from 0 across
 * segments. Appends are serialised; {@link #awaitDurable(long)} is a group commit (one thread
 * forces the file for every append waiting at that moment). Opening the log replays every valid
 * record in order and truncates a torn record at the end of the last segment (a crash in the middle
 * of a write), which its length, checksum or position gives away. A new segment is started at every
 * open and whenever the current one reaches the segment size; a full segment is forced before the
 * next one starts, so only the current segment ever holds records that are not yet on disk. {@link
 * #expunge} rewrites sealed segments with some records turned into holes of the same size ({@link
 * SegmentExpunger}: a negative length, zero bytes): replay passes over a hole, and reading it
 * throws {@link ErasedRecordException}. Thread-safe.
 */
final class SegmentLog implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SegmentLog.class);

  private static final String SUFFIX = ".seg";

  /** Where a record is: its segment (first position), the offset of its frame, its body length. */
  record Location(long segment, long offset, int length) {}

  /** A record just written: its position and where it went. */
  record Appended(long position, Location at) {}

  /** Receives every valid record when the journal is opened, in position order. */
  @FunctionalInterface
  interface Replay {
    void record(long position, Location at, ByteBuffer body);
  }

  private final Path dir;
  private final long segmentSize;
  private final boolean fsync;
  private final ReentrantLock lock = new ReentrantLock();

  /** Held while sealed segments are rewritten or deleted, so that the two never meet. */
  private final ReentrantLock rewrites = new ReentrantLock();

  private final Object syncMonitor = new Object();
  private final Map<Long, FileChannel> readers = new ConcurrentHashMap<>();
  private final AtomicLong totalBytes = new AtomicLong();

  // guarded by lock
  private final TreeMap<Long, Long> segmentBytes = new TreeMap<>();
  private FileChannel active;
  private long activeBase;
  private long activeSize;
  private long nextPosition;
  private boolean closed;

  // guarded by syncMonitor
  private boolean syncing;

  /** Every record before this position is on disk (or fsync is off and it was written). */
  private volatile long durablePosition;

  private SegmentLog(Path dir, long segmentSize, boolean fsync) {
    this.dir = dir;
    this.segmentSize = segmentSize;
    this.fsync = fsync;
  }

  /**
   * Opens (or creates) the journal in {@code dir}, replays its records and starts a new segment.
   *
   * @param minNextPosition the next record gets at least this position (the delivery cursors may be
   *     ahead of the records left on disk)
   * @param replay receives every valid record in order
   */
  static SegmentLog open(
      Path dir, long segmentSize, boolean fsync, long minNextPosition, Replay replay)
      throws IOException {
    Files.createDirectories(dir);
    SegmentLog journal = new SegmentLog(dir, segmentSize, fsync);
    journal.lock.lock();
    try {
      journal.recover(minNextPosition, replay);
    } catch (IOException | RuntimeException e) {
      journal.closeActiveQuietly();
      throw e;
    } finally {
      journal.lock.unlock();
    }
    return journal;
  }

  /**
   * Writes one record and returns its position and place. The record is on disk once {@link
   * #awaitDurable(long)} returns for that position.
   *
   * @throws IOException when the write fails; the record is then not in the journal
   * @throws IllegalStateException after {@link #close()}
   */
  Appended append(byte[] body) throws IOException {
    if (body.length == 0 || body.length > MAX_BODY_BYTES) {
      throw new IllegalArgumentException("a journal record must be 1-" + MAX_BODY_BYTES + " bytes");
    }
    ByteBuffer frame = ByteBuffer.allocate(FRAME_HEADER_BYTES + body.length);
    frame.putInt(body.length).putInt(crc(ByteBuffer.wrap(body))).putLong(0).put(body).flip();
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException("the turn journal is closed");
      }
      long position = nextPosition;
      frame.putLong(8, position);
      long offset = activeSize;
      try {
        writeFully(active, frame, offset);
      } catch (IOException e) {
        try {
          active.truncate(offset);
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
      activeSize += frame.capacity();
      segmentBytes.put(activeBase, activeSize);
      totalBytes.addAndGet(frame.capacity());
      nextPosition = position + 1;
      if (!fsync) {
        durablePosition = nextPosition;
      }
      Appended appended = new Appended(position, new Location(activeBase, offset, body.length));
      if (activeSize >= segmentSize) {
        try {
          roll();
        } catch (IOException e) {
          // the record is written; the segment grows on and the next append tries again
          log.warn("Could not start a new outbox segment in {}: {}", dir, e.toString());
        }
      }
      return appended;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns once the record at {@code position} (and every one before it) is on disk. Concurrent
   * callers share one {@code fdatasync}: while one thread forces the file, the others wait, and the
   * next force covers everything appended meanwhile.
   */
  void awaitDurable(long position) throws IOException {
    while (durablePosition <= position) {
      synchronized (syncMonitor) {
        while (syncing && durablePosition <= position) {
          try {
            syncMonitor.wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the journal to reach the disk");
          }
        }
        if (durablePosition > position) {
          return;
        }
        syncing = true;
      }
      long target;
      FileChannel channel;
      IOException failure = null;
      lock.lock();
      try {
        target = nextPosition;
        channel = active;
      } finally {
        lock.unlock();
      }
      try {
        channel.force(false);
      } catch (ClosedChannelException e) {
        // The segment was completed (forced, then closed) or the journal was closed (forced).
      } catch (IOException e) {
        failure = e;
      } finally {
        synchronized (syncMonitor) {
          syncing = false;
          if (failure == null && target > durablePosition) {
            durablePosition = target;
          }
          syncMonitor.notifyAll();
        }
      }
      if (failure != null) {
        throw failure;
      }
    }
  }

  /** Every record before this position is on disk. */
  long durablePosition() {
    return durablePosition;
  }

  /**
   * Reads the body of the record at {@code position}, checking its frame again.
   *
   * @throws CorruptRecordException when the frame does not match (damaged on disk)
   * @throws IOException when the segment cannot be read
   */
  ByteBuffer read(long position, Location at) throws IOException {
    ByteBuffer frame = ByteBuffer.allocate(FRAME_HEADER_BYTES + at.length());
    for (int attempt = 1; ; attempt++) {
      FileChannel channel = reader(at.segment());
      try {
        frame.clear();
        readFully(channel, frame, at.offset());
        break;
      } catch (ClosedChannelException e) {
        // the segment was just rewritten by an erasure and its reader closed: read the new file
        readers.remove(at.segment(), channel);
        if (attempt == 3) {
          throw e;
        }
      }
    }
    frame.flip();
    int length = frame.getInt();
    if (length == -at.length()) {
      throw new ErasedRecordException(position);
    }
    int crc = frame.getInt();
    long stored = frame.getLong();
    ByteBuffer body = frame.slice(FRAME_HEADER_BYTES, at.length());
    if (length != at.length() || stored != position || crc(body) != crc) {
      throw new CorruptRecordException(
          "record " + position + " in " + segmentPath(at.segment()) + " is damaged");
    }
    return body;
  }

  private FileChannel reader(long segment) throws IOException {
    try {
      return readers.computeIfAbsent(
          segment,
          base -> {
            try {
              return FileChannel.open(segmentPath(base), StandardOpenOption.READ);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /**
   * Erases the records before {@code before} whose body {@code doomed} accepts: every segment that
   * holds one is rewritten with holes in their place (the current segment is completed first), so
   * that no segment file keeps their bytes. Returns how many records were erased.
   *
   * @throws IOException when a segment cannot be rewritten; the segments rewritten before it stay
   *     rewritten, the others as they were, and a retry erases the rest
   */
  int expunge(long before, Predicate<ByteBuffer> doomed) throws IOException {
    rewrites.lock();
    try {
      List<Long> bases;
      lock.lock();
      try {
        if (closed) {
          throw new IllegalStateException("the turn journal is closed");
        }
        if (activeBase < before && activeSize > SEGMENT_HEADER_BYTES) {
          roll(); // only sealed segments are rewritten; appends go on in the new one
        }
        bases = new ArrayList<>(segmentBytes.headMap(Math.min(before, activeBase)).keySet());
      } finally {
        lock.unlock();
      }
      int erased = 0;
      for (long base : bases) {
        int holes = SegmentExpunger.rewrite(segmentPath(base), before, doomed, fsync);
        if (holes > 0) {
          erased += holes;
          closeQuietly(readers.remove(base)); // it reads the old file; the next read opens the new
        }
      }
      return erased;
    } finally {
      rewrites.unlock();
    }
  }

  /** The position of the first record of the current segment. */
  long activeSegmentStart() {
    return locked(() -> activeBase);
  }

  /** The position the next record gets. */
  long nextPosition() {
    return locked(() -> nextPosition);
  }

  /** Bytes of all segment files. */
  long bytes() {
    return totalBytes.get();
  }

  /** Number of segment files. */
  int segments() {
    return locked(() -> segmentBytes.size());
  }

  /** What {@code read} answers, under the lock. */
  private <T> T locked(Supplier<T> read) {
    lock.lock();
    try {
      return read.get();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Deletes every completed segment whose records all lie before {@code position} (every reader is
   * past them); the current segment is always kept. Returns how many were deleted.
   */
  int deleteBefore(long position) {
    rewrites.lock();
    try {
      return deleteSealedBefore(position);
    } finally {
      rewrites.unlock();
    }
  }

  private int deleteSealedBefore(long position) {
    List<Long> doomed = new ArrayList<>();
    lock.lock();
    try {
      for (Map.Entry<Long, Long> segment : segmentBytes.entrySet()) {
        long base = segment.getKey();
        Long end = segmentBytes.higherKey(base);
        if (base == activeBase || end == null || end > position) {
          break;
        }
        doomed.add(base);
      }
      for (Long base : doomed) {
        totalBytes.addAndGet(-segmentBytes.remove(base));
      }
    } finally {
      lock.unlock();
    }
    for (Long base : doomed) {
      FileChannel reader = readers.remove(base);
      closeQuietly(reader);
      try {
        Files.deleteIfExists(segmentPath(base));
      } catch (IOException e) {
        log.warn("Could not delete the delivered outbox segment {}: {}", segmentPath(base), e);
      }
    }
    return doomed.size();
  }

  /** Forces and closes the current segment; appends fail afterwards. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      if (active != null) {
        try {
          if (fsync) {
            active.force(false);
          }
        } catch (IOException e) {
          log.warn("Could not force the outbox journal to disk at close: {}", e.toString());
        }
      }
      closeQuietly(active);
    } finally {
      lock.unlock();
    }
    for (FileChannel reader : readers.values()) {
      closeQuietly(reader);
    }
    readers.clear();
  }

  // ---- recovery and segments (called under the lock) ----

  private void recover(long minNextPosition, Replay replay) throws IOException {
    deleteLeftoverRewrites();
    List<Long> bases = listSegments();
    long next = 0;
    for (int i = 0; i < bases.size(); i++) {
      long base = bases.get(i);
      boolean last = i == bases.size() - 1;
      Path file = segmentPath(base);
      if (base < next) {
        throw new IOException(
            "outbox segment " + file + " overlaps the one before it; the journal is damaged");
      }
      long records;
      long size;
      try (FileChannel channel =
          FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        size = channel.size();
        if (size < SEGMENT_HEADER_BYTES) {
          // created, then the host stopped before its header reached the disk
          channel.close();
          Files.delete(file);
          log.warn("Removed the empty outbox segment {}", file);
          continue;
        }
        ByteBuffer magic = ByteBuffer.allocate(SEGMENT_HEADER_BYTES);
        readFully(channel, magic, 0);
        if (magic.flip().getLong() != MAGIC) {
          throw new IOException(file + " is not a memstack outbox segment");
        }
        long position = SEGMENT_HEADER_BYTES;
        long expected = base;
        while (true) {
          SegmentFrames.Head frame = SegmentFrames.head(channel, position, size);
          if (frame == null || frame.position() != expected) {
            break;
          }
          ByteBuffer body = SegmentFrames.body(channel, frame, position);
          if (body == null) {
            break;
          }
          if (!frame.hole()) {
            replay.record(
                expected, new Location(base, position, frame.length()), body.asReadOnlyBuffer());
          } // else a hole: a record erased with its owner
          position += FRAME_HEADER_BYTES + frame.bodyLength();
          expected++;
        }
        if (position < size) {
          if (last) {
            log.warn(
                "Truncated a torn record at the end of the outbox segment {} ({} bytes from"
                    + " offset {}): the host stopped while writing it, before acknowledging it",
                file,
                size - position,
                position);
            channel.truncate(position);
            channel.force(true);
            size = position;
          } else {
            log.error(
                "The outbox segment {} is damaged at offset {}; the {} bytes after it are skipped",
                file,
                position,
                size - position);
          }
        }
        records = expected - base;
      }
      segmentBytes.put(base, size);
      totalBytes.addAndGet(size);
      next = base + records;
    }
    next = Math.max(next, minNextPosition);
    Long newest = segmentBytes.isEmpty() ? null : segmentBytes.lastKey();
    if (newest != null && newest >= next) {
      // the newest segment holds no records: start it afresh
      totalBytes.addAndGet(-segmentBytes.remove(newest));
      Files.delete(segmentPath(newest));
      next = Math.max(next, newest);
    }
    nextPosition = next;
    durablePosition = next;
    startSegment(next);
  }

  private void roll() throws IOException {
    if (fsync) {
      active.force(false);
    }
    FileChannel previous = active;
    startSegment(nextPosition);
    closeQuietly(previous);
  }

  private void startSegment(long base) throws IOException {
    Path file = segmentPath(base);
    FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      writeFully(channel, ByteBuffer.allocate(SEGMENT_HEADER_BYTES).putLong(MAGIC).flip(), 0);
      if (fsync) {
        channel.force(true);
        forceDirectory();
      }
    } catch (IOException e) {
      closeQuietly(channel);
      Files.deleteIfExists(file);
      throw e;
    }
    active = channel;
    activeBase = base;
    activeSize = SEGMENT_HEADER_BYTES;
    segmentBytes.put(base, activeSize);
    totalBytes.addAndGet(activeSize);
  }

  /** Deletes the copies of an erasure that stopped before its rename: they hold erased bytes. */
  private void deleteLeftoverRewrites() throws IOException {
    try (DirectoryStream<Path> files =
        Files.newDirectoryStream(dir, "*" + SUFFIX + SegmentExpunger.TEMP_SUFFIX)) {
      for (Path file : files) {
        Files.deleteIfExists(file);
        log.info("Removed {}, left by an erasure that was cut short", file);
      }
    }
  }

  private List<Long> listSegments() throws IOException {
    List<Long> bases = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        String digits = name.substring(0, name.length() - SUFFIX.length());
        if (digits.length() == 20 && digits.chars().allMatch(Character::isDigit)) {
          bases.add(Long.parseLong(digits));
        } else {
          log.warn("Ignoring {}: not an outbox segment name", file);
        }
      }
    }
    bases.sort(null);
    return bases;
  }

  Path segmentPath(long base) {
    return dir.resolve(String.format("%020d%s", base, SUFFIX));
  }

  private void forceDirectory() {
    SegmentFrames.forceDirectory(dir);
  }

  private void closeActiveQuietly() {
    closed = true;
    closeQuietly(active);
  }
}
