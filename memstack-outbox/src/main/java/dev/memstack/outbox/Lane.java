package dev.memstack.outbox;

import dev.memstack.outbox.journal.CursorStore.ParkedErase;
import dev.memstack.outbox.journal.Journal;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
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
 * <p>Two kinds: a {@link LocalLane} is handed its records by the engine and always delivers; a
 * {@link SharedLane} reads them from a shared journal while this host holds its lease. They differ
 * only in the hooks below (whether the lane may deliver now, how an erasure is queued, what is
 * durable, and claiming a delivery).
 */
abstract class Lane implements Runnable {

  private static final Logger log = LoggerFactory.getLogger(Lane.class);

  /** How long a lane that may not deliver (or lost a claim) waits before it tries again. */
  static final Duration LEASE_RETRY = Duration.ofSeconds(1);

  /** A cursor is saved after this many completed records at the latest. */
  private static final int CURSOR_BATCH = 64;

  /** ... or when its last save is this old. */
  private static final long CURSOR_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  final String providerId;

  /** The lane's id: the provider id, or {@code provider#shard} over a shared journal. */
  final String laneId;

  /** Records before this position were done before the journal was opened. */
  final long start;

  private final LongSupplier handedOut;
  final Journal journal;
  private final LaneCalls delivery;
  final int deliveryBatch;
  final Backoff backoff;
  private final Triage triage;

  // guarded by this
  final ArrayDeque<ParkedErase> parked = new ArrayDeque<>();
  final ArrayDeque<Journal.Entry> queue = new ArrayDeque<>();
  final ArrayDeque<Urgent> urgent = new ArrayDeque<>();
  long horizon;
  int pendingTurns;
  private long delivered;
  private long erased;
  private long failedAttempts;
  private String lastError;
  int unsaved;

  /** Records below this position may have been delivered by the lane's last holder. */
  long attemptedBefore;

  private long redelivered;

  /** Whether the thread is working on something taken from the queues (not to be parked). */
  boolean working;

  /** While {@link #working}: how many records at the head of the queue the work holds. */
  int inFlight;

  // guarded by saveLock
  final Object saveLock = new Object();
  long savedNext = -1;
  List<ParkedErase> savedParked = List.of();
  volatile long lastSaveNanos = System.nanoTime();

  volatile boolean stopped;
  private Thread worker;

  Lane(String providerId, String laneId, long start, LongSupplier handedOut, LaneSetup setup) {
    this.providerId = Objects.requireNonNull(providerId, "providerId");
    this.laneId = Objects.requireNonNull(laneId, "laneId");
    this.handedOut = Objects.requireNonNull(handedOut, "handedOut");
    this.start = start;
    this.horizon = start;
    this.journal = setup.journal();
    this.delivery = setup.calls();
    this.deliveryBatch = setup.deliveryBatch();
    this.backoff = setup.backoff();
    this.triage = setup.triage();
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
  abstract boolean leased();

  synchronized void addTurn(Journal.Entry entry) {
    queue.addLast(entry);
    pendingTurns++;
    horizon = entry.position() + 1;
    notifyAll();
  }

  /** Queues an erasure after dropping the owner's waiting turns; returns how many were. */
  abstract int addErase(Journal.Entry entry, Urgent request);

  /**
   * Drops the owner's waiting turns before {@code before}, queues {@code request} if any and wakes
   * the thread; returns how many turns were dropped.
   */
  final int dropTurnsOf(String owner, long before, Urgent request) {
    int dropped = 0;
    for (Iterator<Journal.Entry> it = queue.iterator(); it.hasNext(); ) {
      Journal.Entry waiting = it.next();
      if (!waiting.erase() && waiting.owner().equals(owner) && waiting.position() < before) {
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
        if (!leased()) {
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
      if (!ready()) {
        try {
          pause(LEASE_RETRY);
        } catch (InterruptedException e) {
          return;
        }
        continue;
      }
      try {
        // asked outside the lane's lock: it is a call into the provider
        work = awaitWork(delivery.takesBatches(), pollMillis());
      } catch (InterruptedException e) {
        return;
      }
      if (work == null) {
        if (stopped) {
          return;
        }
        continue;
      }
      boolean claimed;
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
        if (attempt.done()) {
          triage.reset();
        } else if (parked(work.entries().get(attempts.size() - 1), attempt)) {
          failuresInARow = 0;
          continue;
        }
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
            work.describe(),
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

  /**
   * Parks {@code failing} when its {@link Triage} says so; on a probe only if the next turn goes
   * through and {@code failing} fails once more then (an outage that just ended parks nothing).
   * Whether {@code failing} left the queue.
   */
  private boolean parked(Journal.Entry failing, Attempt attempt) {
    Triage.Verdict verdict = triage.after(failing, attempt);
    if (verdict == Triage.Verdict.PROBE) {
      Journal.Entry next;
      synchronized (this) {
        next = Triage.turnBehind(queue, failing, durable());
      }
      if (next == null || !deliveredAlone(next)) {
        return false;
      }
      if (deliveredAlone(failing)) {
        triage.reset();
        return true;
      }
    }
    if (verdict == Triage.Verdict.RETRY || !triage.park(failing, attempt)) {
      return false;
    }
    synchronized (this) {
      if (Queues.removeFirst(queue, failing)) {
        pendingTurns--;
      }
      unsaved++;
    }
    return true;
  }

  /**
   * Claims and delivers {@code entry}, one of the first two of the queue, on its own; whether it
   * went through.
   */
  private boolean deliveredAlone(Journal.Entry entry) {
    synchronized (this) {
      working = true;
      inFlight = 2;
    }
    List<Journal.Entry> one = List.of(entry);
    boolean claimed;
    try {
      claimed = claim(new Work(null, null, one));
    } catch (IOException | RuntimeException e) {
      claimed = false;
    }
    if (!claimed) {
      synchronized (this) {
        working = false;
      }
      return false;
    }
    List<Attempt> attempts = delivery.deliver(one);
    complete(one, attempts);
    return Attempt.DELIVERED.equals(attempts.get(0).outcome());
  }

  private synchronized int unsavedCount() {
    return unsaved;
  }

  /** Whether the lane may deliver now; a lane that may not waits {@link #LEASE_RETRY}. */
  abstract boolean ready();

  /** How long the thread waits for work before it asks {@link #ready()} again; 0: until woken. */
  abstract long pollMillis();

  /**
   * Called before {@code work} is delivered; whether this host may deliver it.
   *
   * @throws IOException when the claim could not be saved (the work is retried after a backoff)
   */
  abstract boolean claim(Work work) throws IOException;

  /** Records before this position may be delivered (their append is durable). */
  abstract long durable();

  /** Whether an urgent erasure may cut a backoff short now. */
  abstract boolean mayErase(Urgent request);

  /** The erasures of {@code owner} up to {@code upTo} were done urgently. */
  void erasedUrgently(String owner, long upTo) {}

  private synchronized Work awaitWork(boolean batches, long maxWaitMillis)
      throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
    boolean woken = false;
    while (!stopped) {
      long durable = durable();
      Urgent request = urgent.peekFirst();
      Work work = null;
      if (request != null && request.upTo() < durable) {
        work = new Work(request, null, null);
      } else if (!parked.isEmpty()) {
        work = new Work(null, parked.peekFirst(), null);
      } else {
        Journal.Entry head = queue.peekFirst();
        if (head != null && head.position() < durable) {
          work = Work.turnsFrom(queue, durable, batches ? deliveryBatch : 1);
        }
      }
      if (work != null) {
        working = true;
        inFlight = work.entries() == null ? 0 : work.entries().size();
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

  /** Waits out a backoff, cut short by an urgent erasure or by stop. */
  synchronized void pause(Duration wait) throws InterruptedException {
    long until = System.nanoTime() + wait.toNanos();
    while (!stopped) {
      Urgent request = urgent.peekFirst();
      if (request != null && mayErase(request)) {
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
        erasedUrgently(owner, work.urgent().upTo());
        erased++;
        unsaved++;
      }
    } else if (work.parked() != null) {
      if (attempt.done()) {
        Queues.removeFirst(parked, work.parked());
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
      if (Queues.removeFirst(queue, entry) && !entry.erase()) {
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

  private List<Attempt> perform(List<Journal.Entry> entries) {
    Journal.Entry first = entries.get(0);
    return first.erase() ? List.of(delivery.forget(first.owner())) : delivery.deliver(entries);
  }
}
