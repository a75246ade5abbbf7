package dev.memstack.outbox;

import dev.memstack.outbox.journal.CursorStore.ParkedErase;
import dev.memstack.outbox.journal.Journal;
import dev.memstack.outbox.journal.SharedJournal;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lane over a {@link SharedJournal}: one provider's share of one shard ({@code provider#shard})
 * that works only while this host holds its lease. On taking it, the lane reads the saved cursor
 * and from then on reads its records from the journal (other hosts append too), a batch at a time;
 * before each delivery it saves its cursor and what it is about to deliver, guarded by the lease
 * ({@link SharedJournal#claim}); it gives the lease up when this host holds more than its share of
 * the provider's lanes, and drops what it read when it loses the lease.
 */
final class SharedLane extends Lane {

  private static final Logger log = LoggerFactory.getLogger(Lane.class);

  /** How long a shared lane waits for a notification before it reads its shard again. */
  private static final long SHARED_POLL_MILLIS = 1_000;

  /** How long a lane that gave its lease up for balance leaves it to another host. */
  private static final long YIELD_NANOS = TimeUnit.SECONDS.toNanos(3);

  /** Records read per scan when turns are skipped ({@link #skipBefore}), and scans per call. */
  private static final int SKIP_SCAN = 1_000;

  private static final int SKIP_ROUNDS = 20;

  private final SharedJournal shared;

  // guarded by this
  private boolean leased;
  private long yieldUntilNanos = System.nanoTime();

  /**
   * Owners whose erasure was done urgently, up to a position: their erasures are not read again.
   */
  private final Map<String, Long> erasedUpTo = new HashMap<>();

  SharedLane(String providerId, String laneId, SharedJournal journal, LaneSetup setup) {
    super(providerId, laneId, 0, () -> 0L, setup);
    this.shared = journal;
  }

  @Override
  synchronized boolean leased() {
    return leased;
  }

  /**
   * The erasure is read from the journal in its turn; here the owner's turns read already are
   * dropped and, when this host holds the lane, the erasure is tried at once.
   */
  @Override
  synchronized int addErase(Journal.Entry entry, Urgent request) {
    if (!leased) {
      return 0;
    }
    return dropTurnsOf(entry.owner(), entry.position(), request);
  }

  @Override
  long pollMillis() {
    return SHARED_POLL_MILLIS;
  }

  @Override
  long durable() {
    return Long.MAX_VALUE;
  }

  @Override
  boolean mayErase(Urgent request) {
    return leased;
  }

  @Override
  void erasedUrgently(String owner, long upTo) {
    erasedUpTo.merge(owner, upTo, Math::max);
  }

  /**
   * Gives the lease up past this host's share, takes (or keeps) it, and reads the lane's next
   * records; whether the lane may deliver now.
   */
  @Override
  boolean ready() {
    try {
      return step();
    } catch (IOException | RuntimeException e) {
      log.warn("Outbox lane {} cannot read the shared journal: {}", laneId, e.toString());
      return false;
    }
  }

  private boolean step() throws IOException {
    synchronized (this) {
      if (!leased && System.nanoTime() - yieldUntilNanos < 0) {
        return false;
      }
    }
    if (leased() && shared.overShare(laneId)) {
      save(true);
      shared.release(laneId);
      drop();
      synchronized (this) {
        yieldUntilNanos = System.nanoTime() + YIELD_NANOS;
      }
      return false;
    }
    if (!journal.tryLease(laneId)) {
      if (leased()) {
        log.info("Outbox lane {} lost its lease; another host delivers it", laneId);
        drop();
      }
      return false;
    }
    if (!leased()) {
      SharedJournal.Taken taken = shared.taken(laneId);
      synchronized (saveLock) {
        synchronized (this) {
          queue.clear();
          parked.clear();
          parked.addAll(taken.cursor().parked());
          pendingTurns = 0;
          horizon = taken.cursor().next();
          attemptedBefore = taken.attemptedBefore();
          erasedUpTo.clear();
          leased = true;
        }
        savedNext = taken.cursor().next();
        savedParked = taken.cursor().parked();
      }
      log.debug(
          "Outbox lane {} taken at {} (last holder delivered up to {})",
          laneId,
          taken.cursor().next(),
          taken.attemptedBefore());
    }
    refill();
    return true;
  }

  /** Reads the lane's next records from the shared journal while fewer than a batch wait. */
  private void refill() throws IOException {
    long from;
    synchronized (this) {
      if (queue.size() >= deliveryBatch) {
        return;
      }
      from = horizon;
    }
    SharedJournal.Scan scan = shared.scan(laneId, from, Math.max(4 * deliveryBatch, 64));
    synchronized (this) {
      take(scan, from);
    }
  }

  /**
   * Queues what {@code scan} read from {@code from} on, unless the lane was given up or read
   * further meanwhile; whether it was queued.
   */
  private boolean take(SharedJournal.Scan scan, long from) {
    if (!leased || horizon != from) {
      return false;
    }
    for (Journal.Entry entry : scan.entries()) {
      Long erasedTo = erasedUpTo.get(entry.owner());
      if (entry.erase() && erasedTo != null && entry.position() <= erasedTo) {
        continue; // done urgently already
      }
      queue.addLast(entry);
      if (!entry.erase()) {
        pendingTurns++;
      }
    }
    horizon = scan.scannedTo();
    erasedUpTo.values().removeIf(upTo -> upTo < horizon);
    return true;
  }

  /**
   * Drops the lane's waiting turns before {@code cut} and parks its erasures there ({@link
   * BacklogBounds#dropBefore}), reading the journal up to {@code cut} a few thousand records per
   * call; nothing while another host holds the lane. Returns how many turns were dropped; the
   * cursor is saved by the caller.
   */
  int skipBefore(long cut) throws IOException {
    int dropped;
    long from;
    synchronized (this) {
      if (!leased) {
        return 0;
      }
      dropped = BacklogBounds.dropBefore(this, cut);
      from = horizon;
    }
    for (int round = 0; round < SKIP_ROUNDS && from < cut; round++) {
      SharedJournal.Scan scan = shared.scan(laneId, from, SKIP_SCAN);
      synchronized (this) {
        if (!take(scan, from)) {
          break;
        }
        dropped += BacklogBounds.dropBefore(this, cut);
        if (horizon == from) {
          break; // nothing more to read
        }
        from = horizon;
      }
    }
    return dropped;
  }

  /** Forgets what was read from the shared journal (the lease is gone). */
  private void drop() {
    synchronized (saveLock) {
      synchronized (this) {
        leased = false;
        queue.clear();
        parked.clear();
        pendingTurns = 0;
        erasedUpTo.clear();
        urgent.clear(); // the erasure's caller also watches the lane's saved cursor
        unsaved = 0;
        working = false;
      }
      savedNext = -1;
      savedParked = List.of();
    }
  }

  /**
   * Saves the cursor and the end of {@code work} before it is delivered; whether this host still
   * holds the lane.
   */
  @Override
  boolean claim(Work work) throws IOException {
    synchronized (saveLock) {
      long next;
      List<ParkedErase> parkedNow;
      long end;
      synchronized (this) {
        next = cursor(0);
        parkedNow = List.copyOf(parked);
        end = next;
        if (work.entries() != null) {
          end = work.entries().get(work.entries().size() - 1).position() + 1;
        }
        unsaved = 0;
      }
      if (!shared.claim(laneId, new Journal.Cursor(next, parkedNow), end)) {
        log.info(
            "Outbox lane {} lost its lease before a delivery; another host delivers it", laneId);
        drop();
        return false;
      }
      savedNext = next;
      savedParked = parkedNow;
      lastSaveNanos = System.nanoTime();
      return true;
    }
  }
}
