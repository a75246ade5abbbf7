package dev.memstack.outbox.journal;

import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The {@link Journal} of {@code memstack.outbox.type=memory}: records in the heap (cursors have
 * nowhere to be read back from), so nothing survives the host; every record is durable at once.
 * Bounded like the file journal, by {@code memstack.outbox.max-pending} and {@code
 * max-journal-size} (the bytes of the encoded records held).
 */
public final class MemoryJournal implements Journal {

  /** Per-record bookkeeping counted like a file frame, so both journals fill alike. */
  private static final int OVERHEAD = SegmentFrames.FRAME_HEADER_BYTES;

  /** Stands for the body of a record erased with its owner. */
  private static final byte[] ERASED = new byte[0];

  private final NavigableMap<Long, byte[]> records = new ConcurrentSkipListMap<>();
  private final AtomicLong bytes = new AtomicLong();
  private final MemoryDeadLetters deadLetters = new MemoryDeadLetters();
  private volatile long next;
  private volatile boolean closed;

  @Override
  public boolean persistent() {
    return false;
  }

  @Override
  public String describe() {
    return "memory";
  }

  @Override
  public Map<String, Cursor> cursors() {
    return Map.of();
  }

  @Override
  public void replay(Consumer<Entry> sink) {
    // nothing survives a restart
  }

  @Override
  public synchronized Entry append(JournalRecord.Header header, byte[] body) {
    if (closed) {
      throw new IllegalStateException("the in-memory turn journal is closed");
    }
    long position = next;
    records.put(position, body);
    bytes.addAndGet(body.length + OVERHEAD);
    next = position + 1;
    return new Entry(position, header, null);
  }

  @Override
  public void awaitDurable(long position) {
    // durable as soon as it is appended
  }

  @Override
  public long durablePosition() {
    return next;
  }

  @Override
  public long nextPosition() {
    return next;
  }

  @Override
  public JournalRecord read(Entry entry) throws CorruptRecordException {
    byte[] body = records.get(entry.position());
    if (body == null) {
      throw new CorruptRecordException("record " + entry.position() + " was compacted away");
    }
    if (body == ERASED) {
      throw new ErasedRecordException(entry.position());
    }
    return JournalRecord.decode(java.nio.ByteBuffer.wrap(body));
  }

  /** Drops the bodies of the owner's turns; reading one then throws. */
  @Override
  public int expunge(String owner, long before) {
    int erased = 0;
    for (Map.Entry<Long, byte[]> record : records.headMap(before).entrySet()) {
      byte[] body = record.getValue();
      if (body != ERASED
          && JournalRecord.isTurnOf(java.nio.ByteBuffer.wrap(body), owner)
          && records.replace(record.getKey(), body, ERASED)) {
        bytes.addAndGet(-body.length);
        erased++;
      }
    }
    return erased;
  }

  @Override
  public void saveCursor(String lane, Cursor cursor) {
    if (closed) {
      throw new IllegalStateException("the in-memory turn journal is closed");
    }
    // nothing survives a restart, so a cursor has nowhere to be read back from
  }

  @Override
  public DeadLetterStore deadLetters() {
    return deadLetters;
  }

  @Override
  public long sealedBefore() {
    return next;
  }

  @Override
  public int compact(long position) {
    int freed = 0;
    for (Map.Entry<Long, byte[]> record = records.firstEntry();
        record != null && record.getKey() < position;
        record = records.firstEntry()) {
      if (records.remove(record.getKey(), record.getValue())) {
        bytes.addAndGet(-(record.getValue().length + OVERHEAD));
        freed++;
      }
    }
    return freed;
  }

  @Override
  public long bytes() {
    return bytes.get();
  }

  @Override
  public int segments() {
    return records.isEmpty() ? 0 : 1;
  }

  @Override
  public synchronized void close() {
    closed = true;
  }
}
