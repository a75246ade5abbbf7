package dev.memstack.outbox.journal;

import dev.memstack.outbox.journal.CursorStore.ParkedErase;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Where the {@link OutboxEngine} keeps what it accepted: an ordered log of records (a turn for some
 * providers, or the erasure of an owner), one delivery cursor per lane, and the storage the engine
 * frees once every lane is past it. The engine owns the logic (admission, lanes, batching, backoff,
 * erasure); a journal only stores. Two ship: {@link FileJournal} (segment files under the data dir,
 * survives a crash) and {@link MemoryJournal} (lost when the host stops). A database journal shared
 * by several hosts fits the same contract: positions are a global sequence, cursors are rows, and
 * {@link #tryLease} lets a host take a lane (a provider's share of owners) so that two hosts never
 * deliver the same lane at once.
 *
 * <p>Contract, checked for every journal by the journal conformance test: positions start at {@link
 * #nextPosition()} and grow by one per append, in the order of the appends; {@link #append} is
 * called by one thread at a time (a {@link SharedJournal} takes concurrent appends, of this host
 * and of others, and orders them itself); a record is readable from its append until {@link
 * #compact} passes it; {@link #durablePosition()} never moves back; a saved cursor comes back from
 * {@link #cursors()} on the next open of a persistent journal; after {@link #close()} appends and
 * cursor saves fail with {@link IllegalStateException}. Implementations are thread-safe.
 */
public interface Journal extends AutoCloseable {

  /** Bytes a record takes beyond its body (a segment frame's header), counted by every journal. */
  int RECORD_OVERHEAD_BYTES = SegmentFrames.FRAME_HEADER_BYTES;

  /**
   * One record as the engine indexes it, without its body.
   *
   * @param position its place in the journal
   * @param header kind, acceptance time, recipients and owner
   * @param locator where the journal keeps it; opaque to the engine, handed back to {@link #read}
   */
  record Entry(long position, JournalRecord.Header header, Object locator) {
    public Entry {
      Objects.requireNonNull(header, "header");
    }

    public boolean erase() {
      return header.kind() == JournalRecord.Kind.ERASE;
    }

    public String owner() {
      return header.owner();
    }

    public long acceptedAtMillis() {
      return header.acceptedAtMillis();
    }
  }

  /**
   * The saved state of one lane.
   *
   * @param next every record before this position is done for the lane
   * @param parked erasures taken out of the log that still wait for the lane, oldest first
   */
  record Cursor(long next, List<ParkedErase> parked) {
    public Cursor {
      if (next < 0) {
        throw new IllegalArgumentException("a cursor position must not be negative");
      }
      parked = List.copyOf(parked);
    }
  }

  /** Whether records and cursors survive a restart of the host. */
  boolean persistent();

  /** Where the journal is, for logs and errors (a folder, "memory", a database). */
  String describe();

  /** The cursors saved before this open, by lane id; empty for a new journal. */
  Map<String, Cursor> cursors();

  /**
   * Hands every record kept from an earlier run to {@code sink}, in position order (damaged ones
   * are logged and left out). Called once, right after open, before the first append.
   */
  void replay(Consumer<Entry> sink) throws IOException;

  /**
   * Stores one record; it is readable at once and durable once {@link #awaitDurable} returns for
   * its position.
   *
   * @param header the record's index fields, as {@link JournalRecord#decodeHeader} reads them
   * @param body the encoded record ({@link JournalRecord#encode()})
   * @throws IOException when it cannot be stored; it is then not in the journal
   */
  Entry append(JournalRecord.Header header, byte[] body) throws IOException;

  /** Returns once the record at {@code position} and every one before it are durable. */
  void awaitDurable(long position) throws IOException;

  /** Every record before this position is durable. */
  long durablePosition();

  /** The position the next record gets. */
  long nextPosition();

  /**
   * Reads a whole record back.
   *
   * @throws CorruptRecordException when it was damaged in storage
   * @throws IOException when the storage cannot be read now
   */
  JournalRecord read(Entry entry) throws IOException;

  /**
   * Erases from storage every turn record of {@code owner} before position {@code before}: once
   * this returns, no file (or other storage) of the journal holds their bodies, they are not
   * replayed at the next open, and {@link #read} of one throws {@link ErasedRecordException}.
   * Positions, other records and cursors are unchanged. Erasure records are kept (they name the
   * owner, not what the owner said) until every recipient has done them.
   *
   * @return how many records were erased
   * @throws IOException when storage cannot be rewritten now; a retry erases what is left
   */
  int expunge(String owner, long before) throws IOException;

  /**
   * Where this journal keeps the turns a provider will not take (its dead letters): as durable as
   * the journal's records, and shared by every host over a shared journal.
   */
  DeadLetterStore deadLetters();

  /** Replaces the saved state of one lane. */
  void saveCursor(String lane, Cursor cursor) throws IOException;

  /**
   * Records before this position sit in storage that {@link #compact} can free once every lane is
   * past them; the engine moves erasures that wait on an absent provider out of that storage into
   * the provider's cursor, so that they do not hold it.
   */
  long sealedBefore();

  /** Frees the storage of records before {@code position}; returns how many units were freed. */
  int compact(long position);

  /** Bytes the journal holds now (what {@code memstack.outbox.max-journal-size} bounds). */
  long bytes();

  /** Storage units (segment files, chunks) the journal holds now. */
  int segments();

  /**
   * Whether this host may deliver {@code lane} now. A local journal always answers {@code true}; a
   * shared one takes or renews a lease, so that one host at a time delivers a lane.
   */
  default boolean tryLease(String lane) {
    return true;
  }

  /** Stops storing; records and cursors of a persistent journal stay for the next open. */
  @Override
  void close();
}
