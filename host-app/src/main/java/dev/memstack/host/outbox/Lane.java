// One class on purpose (~750 lines): a lane's queue, cursor, lease and thread change together.
package dev.memstack.host.outbox;

import dev.memstack.host.outbox.CursorStore.ParkedErase;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records waiting for one provider id and the daemon thread that delivers them, one piece of
 * work at a time and in journal order: an urgent erasure first (an owner erasure the caller waits
 * for), then parked erasures (taken out of the journal), then the queue — one erasure, or turns
 * from the head on up to the delivery batch for a provider that takes batches. A failure is retried
 * after an exponential {@link Backoff}, cut short by an urgent erasure. The lane's cursor
 * (everything before it is done) is saved to the journal every {@value #CURSOR_BATCH} records or
 * {@code 200 ms} at the latest, and at close. The thread is never interrupted: {@link #stop()} lets
 * it finish the provider call it is in (the SPI promises calls are not interrupted).
 *
 * <p>Over a {@link SharedJournal} a lane is one provider's share of one shard ({@code
 * provider#shard}) and works only while this host holds its lease: on taking it, the lane reads the
 * saved cursor and from then on reads its records from the journal (other hosts append too), a
 * batch at a time; before each delivery it saves its cursor and what it is about to deliver,
 * guarded by the lease ({@link SharedJournal#claim}); it gives the lease up when this host holds
 * more than its share of the provider's lanes, and drops what it read when it loses the lease.
 */
final class Lane implements Runnable {

  private static final Logger log = LoggerFactory.getLogger(Lane.class);

  /** A cursor is saved after this many completed records at the latest. */
  private static final int CURSOR_BATCH = 64;

  /** ... or when its last save is this old. */
  private static final long CURSOR_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  /** How long a lane whose lease another host holds waits before it asks again. */
  private static final Duration LEASE_RETRY = Duration.ofSeconds(1);

  /** How long a shared lane waits for a notification before it reads its shard again. */
  private static final long SHARED_POLL_MILLIS = 1_000;

  /** How long a lane that gave its lease up for balance leaves it to another host. */
  private static final long YIELD_NANOS = TimeUnit.SECONDS.toNanos(3);

  /**
   * An erasure to try before anything else: every pending erasure of the owner up to a position.
   */
  record Urgent(String owner, long upTo, CompletableFuture<Attempt> result) {}

  /**
   * The next piece of work: exactly one field is set; {@code entries} is one erasure or one or more
   * turns in journal order.
   */
  private record Work(Urgent urgent, ParkedErase parked, List<Journal.Entry> entries) {}

  final String providerId;

  /** The lane's id: the provider id, or {@code provider#shard} over a shared journal. */
  final String laneId;

  /** Records before this position were done before the journal was opened. */
  final long start;

  private final LongSupplier handedOut;
  private final Journal journal;
  private final Delivery delivery;
  private final int deliveryBatch;
  private final Backoff backoff;

  /** The journal when it is shared, else {@code null}. */
  private final SharedJournal shared;

  // guarded by this (shared journals only)
  private boolean leased;
  private long attemptedBefore;
  private long redelivered;
  private long yieldUntilNanos = System.nanoTime();

  /**
   * Owners whose erasure was done urgently, up to a position: their erasures are not read again.
   */
  private final java.util.Map<String, Long> erasedUpTo = new java.util.HashMap<>();

  // guarded by this
  private final ArrayDeque<ParkedErase> parked = new ArrayDeque<>();
  private final ArrayDeque<Journal.Entry> queue = new ArrayDeque<>();
  private final ArrayDeque<Urgent> urgent = new ArrayDeque<>();
  private long horizon;
  private int pendingTurns;
  private long delivered;
  private long erased;
  private long failedAttempts;
  private String lastError;
  private int unsaved;

  /** Whether the thread is working on something taken from the queues (not to be parked). */
  private boolean working;

  // guarded by saveLock
  private final Object saveLock = new Object();
  private long savedNext = -1;
  private List<ParkedErase> savedParked = List.of();
  private volatile long lastSaveNanos = System.nanoTime();

  private volatile boolean stopped;
  private Thread worker;

  Lane(
      String providerId,
      String laneId,
      long start,
      LongSupplier handedOut,
      Journal journal,
      Delivery delivery,
      int deliveryBatch,
      Backoff backoff) {
    this.providerId = Objects.requireNonNull(providerId, "providerId");
    this.laneId = Objects.requireNonNull(laneId, "laneId");
    this.shared = journal instanceof SharedJournal s ? s : null;
    this.start = start;
    this.horizon = start;
    this.handedOut = Objects.requireNonNull(handedOut, "handedOut");
    this.journal = Objects.requireNonNull(journal, "journal");
    this.delivery = Objects.requireNonNull(delivery, "delivery");
    this.deliveryBatch = deliveryBatch;
    this.backoff = Objects.requireNonNull(backoff, "backoff");
  }

  /** Takes the state saved before this open: where it stood and its parked erasures. */
  void restore(Journal.Cursor saved) {
    synchronized (saveLock) {
      synchronized (this) {
        parked.addAll(saved.parked());
      }
      savedNext = saved.next();
      savedParked = saved.parked();
    }
  }

  /** Every record before {@code position} has been handed to this lane. */
  synchronized void openedAt(long position) {
    horizon = Math.max(horizon, position);
  }

  void start() {
    worker = new Thread(this, "memstack-outbox-" + laneId);
    worker.setDaemon(true);
    worker.start();
  }

  synchronized int pendingTurns() {
    return pendingTurns;
  }

  /** Turns and erasures waiting, parked ones included. */
  synchronized int pending() {
    return queue.size() + parked.size();
  }

  /** Whether this host delivers the lane now (always over a local journal). */
  synchronized boolean leased() {
    return shared == null || leased;
  }

  synchronized void addTurn(Journal.Entry entry) {
    queue.addLast(entry);
    pendingTurns++;
    horizon = entry.position() + 1;
    notifyAll();
  }

  /** Queues an erasure after dropping the owner's waiting turns; returns how many were. */
  synchronized int addErase(Journal.Entry entry, Urgent request) {
    if (shared != null) {
      return addSharedErase(entry, request);
    }
    int dropped = 0;
    for (Iterator<Journal.Entry> it = queue.iterator(); it.hasNext(); ) {
      Journal.Entry waiting = it.next();
      if (!waiting.erase() && waiting.owner().equals(entry.owner())) {
        it.remove();
        dropped++;
      }
    }
    pendingTurns -= dropped;
    queue.addLast(entry);
    horizon = entry.position() + 1;
    if (request != null) {
      urgent.addLast(request);
    }
    notifyAll();
    return dropped;
  }

  /**
   * Over a shared journal the erasure is read from the journal in its turn; here the owner's turns
   * read already are dropped and, when this host holds the lane, the erasure is tried at once.
   */
  private int addSharedErase(Journal.Entry entry, Urgent request) {
    if (!leased) {
      return 0;
    }
    int dropped = 0;
    for (Iterator<Journal.Entry> it = queue.iterator(); it.hasNext(); ) {
      Journal.Entry waiting = it.next();
      if (!waiting.erase()
          && waiting.owner().equals(entry.owner())
          && waiting.position() < entry.position()) {
        it.remove();
        dropped++;
      }
    }
    pendingTurns -= dropped;
    if (request != null) {
      urgent.addLast(request);
    }
    notifyAll();
    return dropped;
  }

  /**
   * Every record before the returned position is done for this lane (parked ones aside).
   *
   * @param next a position read before this call before which every record has been handed to its
   *     lanes, so an empty queue means all of them are done here
   */
  synchronized long cursor(long next) {
    Journal.Entry head = queue.peekFirst();
    return head == null ? Math.max(horizon, next) : head.position();
  }

  synchronized void wake() {
    notifyAll();
  }

  synchronized OutboxEngine.Backlog backlog(Instant now) {
    long oldest = Long.MAX_VALUE;
    if (!parked.isEmpty()) {
      oldest = parked.peekFirst().acceptedAtMillis();
    }
    if (!queue.isEmpty()) {
      oldest = Math.min(oldest, queue.peekFirst().acceptedAtMillis());
    }
    Duration age =
        oldest == Long.MAX_VALUE
            ? Duration.ZERO
            : Duration.ofMillis(Math.max(0, now.toEpochMilli() - oldest));
    int pending = queue.size() + parked.size();
    OutboxStats stats = new OutboxStats(pending, age, delivered, failedAttempts, lastError);
    return new OutboxEngine.Backlog(
        providerId, stats, pendingTurns, pending - pendingTurns, erased, redelivered);
  }

  /**
   * Moves this lane's erasures into its cursor when nothing but erasures waits for it and the
   * oldest one lies in sealed storage, so that a provider that stays away does not keep the journal
   * from shrinking.
   */
  void parkIfHolding(long sealedBefore) {
    synchronized (saveLock) {
      synchronized (this) {
        Journal.Entry head = queue.peekFirst();
        if (working || head == null || pendingTurns > 0 || head.position() >= sealedBefore) {
          return;
        }
        for (Journal.Entry entry : queue) {
          parked.addLast(new ParkedErase(entry.owner(), entry.acceptedAtMillis()));
        }
        queue.clear();
      }
      save(true);
    }
  }

  void saveIfStale() {
    boolean due;
    synchronized (this) {
      due = unsaved > 0;
    }
    if (due && System.nanoTime() - lastSaveNanos >= CURSOR_INTERVAL_NANOS) {
      save(false);
    }
  }

  /**
   * Writes the cursor if the state changed (always when {@code force}); over a shared journal only
   * while this host holds the lane.
   */
  void save(boolean force) {
    synchronized (saveLock) {
      long journalNext = handedOut.getAsLong();
      long next;
      List<ParkedErase> parkedNow;
      synchronized (this) {
        if (!force && unsaved == 0) {
          return;
        }
        if (shared != null && !leased) {
          unsaved = 0;
          return;
        }
        next = cursor(journalNext);
        parkedNow = List.copyOf(parked);
        unsaved = 0;
      }
      if (next == savedNext && parkedNow.equals(savedParked)) {
        return;
      }
      try {
        journal.saveCursor(laneId, new Journal.Cursor(next, parkedNow));
        savedNext = next;
        savedParked = parkedNow;
        lastSaveNanos = System.nanoTime();
      } catch (IOException | RuntimeException e) {
        if (!stopped) {
          log.warn("Could not save the outbox cursor of provider {}: {}", providerId, e.toString());
        }
        synchronized (this) {
          unsaved++;
        }
      }
    }
  }

  /** Asks the thread to stop after the call it is in; never interrupts it. */
  void stop() {
    stopped = true;
    wake();
  }

  /** Waits for the thread to end, at most until {@code untilNanos}; whether it ended. */
  boolean join(long untilNanos) {
    long left = untilNanos - System.nanoTime();
    if (worker != null && left > 0) {
      try {
        worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return worker == null || !worker.isAlive();
  }

  @Override
  public void run() {
    int failuresInARow = 0;
    while (!stopped) {
      Work work;
      if (shared != null) {
        boolean ready;
        try {
          ready = sharedStep();
        } catch (IOException | RuntimeException e) {
          ready = false;
          log.warn("Outbox lane {} cannot read the shared journal: {}", laneId, e.toString());
        }
        if (!ready) {
          try {
            pause(LEASE_RETRY);
          } catch (InterruptedException e) {
            return;
          }
          continue;
        }
      }
      try {
        // asked outside the lane's lock: it is a call into the provider
        work = awaitWork(delivery.takesBatches(), shared != null ? SHARED_POLL_MILLIS : 0);
      } catch (InterruptedException e) {
        return;
      }
      if (work == null) {
        if (stopped) {
          return;
        }
        continue;
      }
      boolean claimed = true;
      if (shared != null) {
        try {
          claimed = claim(work);
        } catch (IOException | RuntimeException e) {
          synchronized (this) {
            working = false;
          }
          failuresInARow++;
          log.warn("Outbox lane {} cannot save its cursor: {}", laneId, e.toString());
          try {
            pause(backoff.after(failuresInARow));
          } catch (InterruptedException interrupted) {
            return;
          }
          continue;
        }
      }
      if (!claimed || !journal.tryLease(laneId)) {
        synchronized (this) {
          working = false;
        }
        try {
          pause(LEASE_RETRY);
        } catch (InterruptedException e) {
          return;
        }
        continue;
      }
      Attempt attempt;
      if (work.entries() != null) {
        List<Attempt> attempts = perform(work.entries());
        complete(work.entries(), attempts);
        attempt = attempts.get(attempts.size() - 1);
      } else {
        attempt =
            delivery.forget(work.urgent() != null ? work.urgent().owner() : work.parked().owner());
        complete(work, attempt);
      }
      if (work.urgent() != null) {
        work.urgent().result().complete(attempt);
      }
      if (attempt.done()) {
        failuresInARow = 0;
        // an idle lane's last few records are saved by the cleaner within a second
        if (unsavedCount() >= CURSOR_BATCH
            || System.nanoTime() - lastSaveNanos >= CURSOR_INTERVAL_NANOS) {
          save(false);
        }
        continue;
      }
      failuresInARow++;
      Duration wait = backoff.after(failuresInARow);
      // the first failures of a streak, then every tenth: a provider that stays away for hours
      // does not fill the log
      if (failuresInARow <= 3 || failuresInARow % 10 == 0) {
        log.warn(
            "Delivering {} to provider {} failed {} time(s) in a row ({}); retrying in {} ms",
            describe(work),
            providerId,
            failuresInARow,
            attempt.detail(),
            wait.toMillis());
      }
      try {
        pause(wait);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private synchronized int unsavedCount() {
    return unsaved;
  }

  /**
   * Over a shared journal: gives the lease up past this host's share, takes (or keeps) it, and
   * reads the lane's next records; whether the lane may deliver now.
   */
  private boolean sharedStep() throws IOException {
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
      if (!leased || horizon != from) {
        return;
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
    }
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
  private boolean claim(Work work) throws IOException {
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

  private synchronized Work awaitWork(boolean batches, long maxWaitMillis)
      throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
    boolean woken = false;
    while (!stopped) {
      long durable = shared != null ? Long.MAX_VALUE : journal.durablePosition();
      Urgent request = urgent.peekFirst();
      Work work = null;
      if (request != null && request.upTo() < durable) {
        work = new Work(request, null, null);
      } else if (!parked.isEmpty()) {
        work = new Work(null, parked.peekFirst(), null);
      } else {
        Journal.Entry head = queue.peekFirst();
        if (head != null && head.position() < durable) {
          work = new Work(null, null, nextEntries(head, durable, batches));
        }
      }
      if (work != null) {
        working = true;
        return work;
      }
      if (maxWaitMillis <= 0) {
        wait();
      } else {
        long left = until - System.nanoTime();
        if (left <= 0 || woken) {
          return null; // a shared lane reads its shard again
        }
        wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        woken = true;
      }
    }
    return null;
  }

  /**
   * The head erasure alone, or the turns from the head on, up to the delivery batch for a provider
   * that takes batches.
   */
  private List<Journal.Entry> nextEntries(Journal.Entry head, long durable, boolean batches) {
    if (head.erase() || deliveryBatch == 1 || !batches) {
      return List.of(head);
    }
    List<Journal.Entry> entries = new ArrayList<>();
    for (Journal.Entry entry : queue) {
      if (entry.erase() || entry.position() >= durable || entries.size() == deliveryBatch) {
        break;
      }
      entries.add(entry);
    }
    return entries;
  }

  /** Waits out a backoff, cut short by an urgent erasure or by stop. */
  private synchronized void pause(Duration wait) throws InterruptedException {
    long until = System.nanoTime() + wait.toNanos();
    while (!stopped) {
      Urgent request = urgent.peekFirst();
      if (request != null
          && (shared != null ? leased : request.upTo() < journal.durablePosition())) {
        return;
      }
      long left = until - System.nanoTime();
      if (left <= 0) {
        return;
      }
      wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
    }
  }

  /** Books an erasure attempt. */
  private synchronized void complete(Work work, Attempt attempt) {
    working = false;
    if (work.urgent() != null) {
      urgent.remove(work.urgent());
      if (attempt.done()) {
        String owner = work.urgent().owner();
        parked.removeIf(p -> p.owner().equals(owner));
        queue.removeIf(
            e -> e.erase() && e.owner().equals(owner) && e.position() <= work.urgent().upTo());
        if (shared != null) {
          erasedUpTo.merge(owner, work.urgent().upTo(), Math::max);
        }
        erased++;
        unsaved++;
      }
    } else if (work.parked() != null) {
      if (attempt.done()) {
        removeFirst(parked, work.parked());
        erased++;
        unsaved++;
      }
    }
    if (!attempt.done()) {
      failedAttempts++;
      lastError = attempt.detail();
    }
  }

  /** Books the attempts of queued entries: one per entry from the first, in order. */
  private synchronized void complete(List<Journal.Entry> entries, List<Attempt> attempts) {
    working = false;
    for (int i = 0; i < attempts.size(); i++) {
      Attempt attempt = attempts.get(i);
      if (!attempt.done()) {
        failedAttempts++;
        lastError = attempt.detail();
        return;
      }
      Journal.Entry entry = entries.get(i);
      if (removeFirst(queue, entry) && !entry.erase()) {
        pendingTurns--;
      }
      if (entry.erase()) {
        erased++;
      } else if (Attempt.DELIVERED.equals(attempt.outcome())) {
        delivered++;
        if (entry.position() < attemptedBefore) {
          redelivered++; // the last holder of the lane was delivering it when it stopped
        }
      }
      unsaved++;
    }
  }

  private static <T> boolean removeFirst(ArrayDeque<T> deque, T item) {
    if (deque.peekFirst() == item) {
      deque.pollFirst();
      return true;
    }
    for (Iterator<T> it = deque.iterator(); it.hasNext(); ) {
      if (it.next() == item) {
        it.remove();
        return true;
      }
    }
    return false;
  }

  private List<Attempt> perform(List<Journal.Entry> entries) {
    Journal.Entry first = entries.get(0);
    return first.erase() ? List.of(delivery.forget(first.owner())) : delivery.deliver(entries);
  }

  private static String describe(Work work) {
    if (work.entries() != null && !work.entries().get(0).erase()) {
      return work.entries().size() == 1
          ? "outbox record " + work.entries().get(0).position()
          : "outbox records "
              + work.entries().get(0).position()
              + "-"
              + work.entries().get(work.entries().size() - 1).position();
    }
    return "an owner erasure";
  }
}
