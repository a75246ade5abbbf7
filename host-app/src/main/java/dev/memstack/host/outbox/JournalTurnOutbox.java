package dev.memstack.host.outbox;

import dev.memstack.host.outbox.CursorStore.ParkedErase;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.stack.StackProperties;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable {@link TurnOutbox} (and {@link OwnerEraser}): every accepted turn is appended to an
 * on-disk journal under {@code memstack.outbox.dir} (default {@code <memstack.data-dir>/outbox})
 * and forced to disk before {@link #enqueue} returns, concurrent submitters sharing one {@code
 * fdatasync} (group commit). Each record names its recipients, the providers enabled when it was
 * accepted. Each provider id has a delivery cursor in {@code cursors/} and one daemon thread that
 * delivers its records one at a time, in journal order, looking the provider up by id at delivery
 * time and retrying with exponential backoff ({@code memstack.stack.sync.initial-backoff} doubling
 * up to {@code max-backoff}) while it is not running or throws; delivery is at least once, and
 * providers store a turn once by its id. After a crash the journal is replayed from the cursors, a
 * torn last record is truncated, and every acknowledged turn reaches its recipients. An owner
 * erasure is an {@code ERASE} record: the owner's earlier turns still waiting for a recipient are
 * dropped, and the erasure is tried at once and kept, per provider, until that provider has done
 * it, also across restarts; erasures still waiting for a provider that receives nothing else are
 * moved into its cursor file so that they do not hold the journal. A segment is deleted once every
 * cursor is past it. Past {@code memstack.outbox.max-pending} turns waiting for one provider or
 * {@code memstack.outbox.max-journal-size} bytes of journal, new turns are refused with {@link
 * TurnOutboxFullException}. Caveats: the journal lives on one machine and one process may open it
 * (a lock file enforces this); a record that can no longer be read (damaged on disk) is logged and
 * skipped; turns waiting for a provider id that was removed from the configuration keep their
 * segments until it returns.
 */
public final class JournalTurnOutbox implements TurnOutbox, OwnerEraser {

  private static final Logger log = LoggerFactory.getLogger(JournalTurnOutbox.class);

  /** A cursor is saved after this many completed records at the latest. */
  private static final int CURSOR_BATCH = 64;

  /** ... or when its last save is this old. */
  private static final long CURSOR_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  /** How often the segment cleaner runs when nothing wakes it. */
  private static final long MAINTENANCE_INTERVAL_MILLIS = 1_000;

  private static final String DELIVERED = "delivered";
  private static final String SKIPPED = "skipped";
  private static final String FAILED = "failed";

  /** One record waiting for one provider. */
  private record Entry(
      long position, boolean erase, String owner, long acceptedAtMillis, TurnJournal.Location at) {}

  /**
   * An erasure to try before anything else: every pending erasure of the owner up to a position.
   */
  private record Urgent(String owner, long upTo, CompletableFuture<Attempt> result) {}

  /** What a delivery attempt came to; {@code done} means the item leaves the queue. */
  private record Attempt(String outcome, long removed, String detail, boolean done) {}

  /**
   * The next piece of work of a lane: exactly one field is set; {@code entries} is one erasure or
   * one or more turns in journal order.
   */
  private record Work(Urgent urgent, ParkedErase parked, List<Entry> entries) {}

  /**
   * The backlog of one provider, beyond {@link OutboxStats}.
   *
   * @param id the provider id
   * @param stats pending count (turns and erasures), oldest age, delivered turns, failed attempts,
   *     last error
   * @param pendingTurns turns waiting
   * @param pendingErasures erasures waiting
   * @param erased erasures the provider did since start
   */
  public record Backlog(
      String id, OutboxStats stats, int pendingTurns, int pendingErasures, long erased) {}

  /**
   * The journal on disk.
   *
   * @param segments segment files
   * @param bytes bytes of all segment files
   * @param maxBytes {@code memstack.outbox.max-journal-size}
   * @param nextPosition the position the next record gets (records ever accepted)
   * @param fsync whether records are forced to disk before they are acknowledged
   */
  public record JournalStats(
      int segments, long bytes, long maxBytes, long nextPosition, boolean fsync) {}

  private final Path dir;
  private final OutboxProperties settings;
  private final StackProperties.Sync sync;
  private final StackMembers members;
  private final ProviderCalls calls;
  private final Clock clock;
  private final CursorStore cursors;
  private final Map<String, Lane> lanes = new ConcurrentHashMap<>();
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final TurnJournal journal;
  private final Thread cleaner;
  private final Object cleanerMonitor = new Object();
  private volatile boolean closed;
  private volatile boolean stopped;

  private JournalTurnOutbox(
      Path dir,
      OutboxProperties settings,
      StackProperties.Sync sync,
      StackMembers members,
      ProviderCalls calls,
      Clock clock)
      throws IOException {
    this.dir = dir;
    this.settings = settings;
    this.sync = sync;
    this.members = members;
    this.calls = calls;
    this.clock = clock;
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
      this.cursors = new CursorStore(dir.resolve("cursors"), settings.fsync());
      long furthest = 0;
      for (Map.Entry<String, CursorStore.Saved> saved : cursors.loadAll().entrySet()) {
        Lane lane = new Lane(saved.getKey(), saved.getValue().next());
        lane.parked.addAll(saved.getValue().parked());
        lane.markSaved(saved.getValue());
        lanes.put(lane.providerId, lane);
        furthest = Math.max(furthest, saved.getValue().next());
      }
      this.journal =
          TurnJournal.open(
              dir,
              settings.segmentSize().toBytes(),
              settings.fsync(),
              furthest,
              this::replay,
              this::wakeLanes);
    } catch (IOException | RuntimeException e) {
      lock.release();
      lockChannel.close();
      throw e;
    }
    long next = journal.nextPosition();
    for (Lane lane : lanes.values()) {
      lane.openedAt(next);
    }
    for (Lane lane : lanes.values()) {
      lane.start();
    }
    this.cleaner = new Thread(this::clean, "memstack-outbox-cleaner");
    cleaner.setDaemon(true);
    cleaner.start();
    int pending = lanes.values().stream().mapToInt(Lane::pendingTurns).sum();
    log.info(
        "Turn outbox opened at {}: {} segment(s), {} turn deliveries pending over {} provider(s)",
        dir,
        journal.segments(),
        pending,
        lanes.size());
  }

  /**
   * Opens (or creates) the journal in {@code dir}, replays it and starts delivery.
   *
   * @throws UncheckedIOException when the journal cannot be read or created
   * @throws IllegalStateException when another process has the journal open
   */
  public static JournalTurnOutbox open(
      Path dir,
      OutboxProperties settings,
      StackProperties.Sync sync,
      StackMembers members,
      ProviderCalls calls) {
    return open(dir, settings, sync, members, calls, Clock.systemUTC());
  }

  /**
   * Same as {@link #open(Path, OutboxProperties, StackProperties.Sync, StackMembers,
   * ProviderCalls)} with a clock for the acceptance times.
   */
  public static JournalTurnOutbox open(
      Path dir,
      OutboxProperties settings,
      StackProperties.Sync sync,
      StackMembers members,
      ProviderCalls calls,
      Clock clock) {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(sync, "sync");
    Objects.requireNonNull(members, "members");
    Objects.requireNonNull(calls, "calls");
    Objects.requireNonNull(clock, "clock");
    Path folder = dir.toAbsolutePath().normalize();
    try {
      return new JournalTurnOutbox(folder, settings, sync, members, calls, clock);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the turn outbox at " + folder + ": " + e, e);
    }
  }

  // ---- TurnOutbox ----

  /**
   * Appends the turn to the journal and returns once it is on disk (unless {@code
   * memstack.outbox.fsync} is off).
   *
   * @throws TurnOutboxFullException when a provider has {@code max-pending} turns waiting, the
   *     journal is at {@code max-journal-size}, or it cannot be written; nothing is accepted then
   */
  @Override
  public void enqueue(Turn turn, List<String> providerIds) {
    Objects.requireNonNull(turn, "turn");
    List<String> recipients = distinct(providerIds);
    if (closed) {
      throw new IllegalStateException("the turn outbox is closed");
    }
    if (recipients.isEmpty()) {
      return;
    }
    Instant acceptedAt = clock.instant();
    byte[] body = JournalRecord.turn(turn, acceptedAt, recipients).encode();
    String owner = turn.owner().value();
    long maxBytes = settings.maxJournalSize().toBytes();
    long position;
    try {
      position =
          journal.append(
              body,
              new TurnJournal.Admission() {
                @Override
                public void check(long next, int frameBytes) {
                  for (String id : recipients) {
                    Lane lane = lanes.get(id);
                    if (lane != null && lane.pendingTurns() >= settings.maxPending()) {
                      throw new TurnOutboxFullException(id, settings.maxPending());
                    }
                  }
                  if (journal.bytes() + frameBytes > maxBytes) {
                    wakeCleaner();
                    throw new TurnOutboxFullException(
                        null,
                        "the turn journal is full ("
                            + journal.bytes()
                            + " of "
                            + maxBytes
                            + " bytes, memstack.outbox.max-journal-size); try again later");
                  }
                }

                @Override
                public void appended(long at, TurnJournal.Location where) {
                  Entry entry = new Entry(at, false, owner, acceptedAt.toEpochMilli(), where);
                  for (String id : recipients) {
                    lane(id, at).addTurn(entry);
                  }
                }
              });
      journal.awaitDurable(position);
    } catch (IOException e) {
      log.error("Could not write turn {} to the outbox journal at {}", turn.turnId(), dir, e);
      throw new TurnOutboxFullException(
          null, "the turn journal cannot be written right now; try again later");
    }
  }

  @Override
  public Map<String, OutboxStats> stats() {
    Map<String, OutboxStats> stats = new LinkedHashMap<>();
    for (Backlog backlog : backlog()) {
      stats.put(backlog.id(), backlog.stats());
    }
    return stats;
  }

  /** The backlog of every provider id that has ever had a record, sorted by id. */
  public List<Backlog> backlog() {
    Instant now = clock.instant();
    return lanes.keySet().stream().sorted().map(id -> lanes.get(id).backlog(now)).toList();
  }

  /** The journal's size on disk. */
  public JournalStats journalStats() {
    return new JournalStats(
        journal.segments(),
        journal.bytes(),
        settings.maxJournalSize().toBytes(),
        journal.nextPosition(),
        settings.fsync());
  }

  // ---- OwnerEraser ----

  /**
   * Journals an erasure of {@code owner} for every configured provider (enabled or not), drops the
   * owner's turns still waiting for them, and waits up to {@code memstack.outbox.erase-wait} for
   * the running ones to erase the owner; every provider that has not done it by then keeps it
   * queued.
   */
  @Override
  public OwnerErasure erase(OwnerKey owner) {
    Objects.requireNonNull(owner, "owner");
    if (closed) {
      throw new IllegalStateException("the turn outbox is closed");
    }
    List<StackMember> running = members.enabled();
    Set<String> ids = new LinkedHashSet<>();
    Set<String> unsupported = new LinkedHashSet<>();
    for (StackMember member : running) {
      ids.add(member.id());
      if (!canForget(member)) {
        unsupported.add(member.id());
      }
    }
    ids.addAll(members.disabled());
    List<String> recipients = List.copyOf(ids);
    if (recipients.isEmpty()) {
      return new OwnerErasure(owner, List.of());
    }
    Instant acceptedAt = clock.instant();
    byte[] body = JournalRecord.erase(owner, acceptedAt, recipients).encode();
    Map<String, Integer> dropped = new ConcurrentHashMap<>();
    Map<String, CompletableFuture<Attempt>> attempts = new ConcurrentHashMap<>();
    try {
      long position =
          journal.append(
              body,
              new TurnJournal.Admission() {
                @Override
                public void check(long next, int frameBytes) {
                  // an erasure is always accepted: it only ever shrinks what waits
                }

                @Override
                public void appended(long at, TurnJournal.Location where) {
                  Entry entry = new Entry(at, true, owner.value(), acceptedAt.toEpochMilli(), null);
                  for (String id : recipients) {
                    Urgent urgent = null;
                    if (!unsupported.contains(id)) {
                      urgent = new Urgent(owner.value(), at, new CompletableFuture<>());
                      attempts.put(id, urgent.result());
                    }
                    dropped.put(id, lane(id, at).addErase(entry, urgent));
                  }
                }
              });
      journal.awaitDurable(position);
    } catch (IOException e) {
      log.error("Could not write the erasure of an owner to the outbox journal at {}", dir, e);
      throw new TurnOutboxFullException(
          null, "the turn journal cannot be written right now; try again later");
    }
    long deadline = System.nanoTime() + settings.eraseWait().toNanos();
    List<ProviderErasure> outcomes = new ArrayList<>();
    for (String id : recipients) {
      int droppedPending = dropped.getOrDefault(id, 0);
      if (unsupported.contains(id)) {
        outcomes.add(
            new ProviderErasure(
                id,
                ProviderErasure.UNSUPPORTED,
                0,
                droppedPending,
                "provider "
                    + id
                    + " cannot forget owners; its pending turns of the owner"
                    + " were dropped"));
        continue;
      }
      Attempt attempt = await(attempts.get(id), deadline);
      if (attempt == null) {
        outcomes.add(
            new ProviderErasure(
                id,
                ProviderErasure.QUEUED,
                0,
                droppedPending,
                "provider "
                    + id
                    + " did not answer within "
                    + settings.eraseWait().toMillis()
                    + " ms (busy or backing off); the erasure stays queued"));
        continue;
      }
      outcomes.add(
          new ProviderErasure(
              id, attempt.outcome(), attempt.removed(), droppedPending, attempt.detail()));
    }
    log.info(
        "Erased an owner: {}", outcomes.stream().map(o -> o.id() + "=" + o.outcome()).toList());
    return new OwnerErasure(owner, outcomes);
  }

  /**
   * Refuses new records, lets the delivery threads finish their current call (up to {@code
   * memstack.stack.sync.shutdown-grace}), saves every cursor and closes the journal. Nothing
   * pending is lost: it is delivered after the next start.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      stopped = true;
    }
    wakeCleaner();
    wakeLanes();
    long until = System.nanoTime() + Math.max(sync.shutdownGrace().toNanos(), 100_000_000L);
    for (Lane lane : lanes.values()) {
      lane.join(until);
    }
    for (Lane lane : lanes.values()) {
      lane.interrupt();
    }
    long interruptedUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    for (Lane lane : lanes.values()) {
      lane.join(interruptedUntil);
    }
    cleaner.interrupt();
    try {
      cleaner.join(1_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Lane lane : lanes.values()) {
      lane.save(true);
    }
    journal.close();
    try {
      lock.release();
      lockChannel.close();
    } catch (IOException e) {
      log.warn("Could not release the outbox lock at {}: {}", dir, e.toString());
    }
  }

  // ---- internals ----

  /** Rebuilds the queues from one journal record (at open). */
  private void replay(long position, TurnJournal.Location at, ByteBuffer body) {
    JournalRecord.Header header;
    try {
      header = JournalRecord.decodeHeader(body);
    } catch (CorruptRecordException e) {
      log.error("Skipping outbox record {}: {}", position, e.getMessage());
      return;
    }
    boolean erase = header.kind() == JournalRecord.Kind.ERASE;
    Entry entry =
        new Entry(position, erase, header.owner(), header.acceptedAtMillis(), erase ? null : at);
    for (String id : header.recipients()) {
      Lane lane = lanes.computeIfAbsent(id, key -> new Lane(key, 0));
      if (position < lane.start) {
        continue;
      }
      if (erase) {
        lane.addErase(entry, null);
      } else {
        lane.addTurn(entry);
      }
    }
  }

  /** The lane of {@code id}, created and started for a record at {@code position} if new. */
  private Lane lane(String id, long position) {
    return lanes.computeIfAbsent(
        id,
        key -> {
          Lane lane = new Lane(key, position);
          lane.openedAt(position);
          lane.start();
          return lane;
        });
  }

  private void wakeLanes() {
    for (Lane lane : lanes.values()) {
      lane.wake();
    }
  }

  private void wakeCleaner() {
    synchronized (cleanerMonitor) {
      cleanerMonitor.notifyAll();
    }
  }

  /** The cleaner thread: moves stuck erasures out of the journal and deletes passed segments. */
  private void clean() {
    while (!stopped) {
      try {
        maintain();
      } catch (RuntimeException e) {
        log.warn("Outbox maintenance failed: {}", e.toString());
      }
      synchronized (cleanerMonitor) {
        if (stopped) {
          return;
        }
        try {
          cleanerMonitor.wait(MAINTENANCE_INTERVAL_MILLIS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /** One maintenance pass; package-visible for tests. */
  void maintain() {
    long activeStart = journal.activeSegmentStart();
    for (Lane lane : lanes.values()) {
      lane.parkIfHolding(activeStart);
    }
    // Read before the cursors: a lane created after this only has records from here on.
    long next = journal.nextPosition();
    long lowest = next;
    for (Lane lane : lanes.values()) {
      lowest = Math.min(lowest, lane.cursor(next));
    }
    int deleted = journal.deleteBefore(lowest);
    if (deleted > 0) {
      log.debug("Deleted {} delivered outbox segment(s)", deleted);
    }
    for (Lane lane : lanes.values()) {
      lane.saveIfStale();
    }
  }

  private static boolean canForget(StackMember member) {
    try {
      return member.claims(Capability.FORGET);
    } catch (RuntimeException e) {
      return true; // let the erasure itself report the failure
    }
  }

  private static Attempt await(CompletableFuture<Attempt> future, long deadlineNanos) {
    if (future == null) {
      return null;
    }
    try {
      long left = Math.max(0, deadlineNanos - System.nanoTime());
      return future.get(left, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException e) {
      return new Attempt(ProviderErasure.ERROR, 0, Failures.describe(e.getCause()), false);
    }
  }

  private static List<String> distinct(List<String> providerIds) {
    Objects.requireNonNull(providerIds, "providerIds");
    Set<String> ids = new LinkedHashSet<>();
    for (String id : providerIds) {
      ids.add(Objects.requireNonNull(id, "provider id"));
    }
    return List.copyOf(ids);
  }

  /** The records waiting for one provider id and the thread that delivers them. */
  private final class Lane implements Runnable {

    private final String providerId;

    /** Records before this position were done before the journal was opened. */
    private final long start;

    // guarded by this
    private final ArrayDeque<ParkedErase> parked = new ArrayDeque<>();
    private final ArrayDeque<Entry> queue = new ArrayDeque<>();
    private final ArrayDeque<Urgent> urgent = new ArrayDeque<>();
    private long horizon;
    private int pendingTurns;
    private long delivered;
    private long erased;
    private long failedAttempts;
    private String lastError;
    private int unsaved;

    // guarded by saveLock
    private final Object saveLock = new Object();
    private long savedNext = -1;
    private List<ParkedErase> savedParked = List.of();
    private volatile long lastSaveNanos = System.nanoTime();

    private Thread worker;

    Lane(String providerId, long start) {
      this.providerId = providerId;
      this.start = start;
      this.horizon = start;
    }

    void markSaved(CursorStore.Saved saved) {
      synchronized (saveLock) {
        savedNext = saved.next();
        savedParked = saved.parked();
      }
    }

    /** Every record before {@code position} has been handed to this lane. */
    synchronized void openedAt(long position) {
      horizon = Math.max(horizon, position);
    }

    void start() {
      worker = new Thread(this, "memstack-outbox-" + providerId);
      worker.setDaemon(true);
      worker.start();
    }

    synchronized int pendingTurns() {
      return pendingTurns;
    }

    synchronized void addTurn(Entry entry) {
      queue.addLast(entry);
      pendingTurns++;
      horizon = entry.position() + 1;
      notifyAll();
    }

    /** Queues an erasure after dropping the owner's waiting turns; returns how many were. */
    synchronized int addErase(Entry entry, Urgent request) {
      int dropped = 0;
      for (Iterator<Entry> it = queue.iterator(); it.hasNext(); ) {
        Entry waiting = it.next();
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
     * Every record before the returned position is done for this lane (parked ones aside).
     *
     * @param next {@link TurnJournal#nextPosition()} read before this call: every record before it
     *     has been handed to its lanes, so an empty queue means all of them are done here
     */
    synchronized long cursor(long next) {
      Entry head = queue.peekFirst();
      return head == null ? Math.max(horizon, next) : head.position();
    }

    synchronized void wake() {
      notifyAll();
    }

    synchronized Backlog backlog(Instant now) {
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
      return new Backlog(providerId, stats, pendingTurns, pending - pendingTurns, erased);
    }

    /**
     * Moves this lane's erasures into its cursor file when nothing but erasures waits for it and
     * the oldest one holds a completed segment, so that a provider that stays away does not keep
     * the journal from shrinking.
     */
    void parkIfHolding(long activeStart) {
      synchronized (saveLock) {
        synchronized (this) {
          Entry head = queue.peekFirst();
          if (head == null || pendingTurns > 0 || head.position() >= activeStart) {
            return;
          }
          for (Entry entry : queue) {
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

    /** Writes the cursor file if the state changed (always when {@code force}). */
    void save(boolean force) {
      synchronized (saveLock) {
        long journalNext = journal.nextPosition();
        long next;
        List<ParkedErase> parkedNow;
        synchronized (this) {
          if (!force && unsaved == 0) {
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
          cursors.save(providerId, new CursorStore.Saved(next, parkedNow));
          savedNext = next;
          savedParked = parkedNow;
          lastSaveNanos = System.nanoTime();
        } catch (IOException e) {
          log.warn("Could not save the outbox cursor of provider {}: {}", providerId, e.toString());
          synchronized (this) {
            unsaved++;
          }
        }
      }
    }

    void interrupt() {
      if (worker != null) {
        worker.interrupt();
      }
    }

    void join(long untilNanos) {
      long left = untilNanos - System.nanoTime();
      if (worker != null && left > 0) {
        try {
          worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void run() {
      int failuresInARow = 0;
      while (!stopped) {
        Work work;
        try {
          // asked outside the lane's lock: it is a call into the provider
          work = awaitWork(takesBatches());
        } catch (InterruptedException e) {
          return;
        }
        if (work == null) {
          return;
        }
        Attempt attempt;
        if (work.entries() != null) {
          List<Attempt> attempts = perform(work.entries());
          complete(work.entries(), attempts);
          attempt = attempts.get(attempts.size() - 1);
        } else {
          attempt = perform(work);
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
        Duration backoff = backoff(failuresInARow);
        // the first failures of a streak, then every tenth: a provider that stays away for hours
        // does not fill the log
        if (failuresInARow <= 3 || failuresInARow % 10 == 0) {
          log.warn(
              "Delivering {} to provider {} failed {} time(s) in a row ({}); retrying in {} ms",
              describe(work),
              providerId,
              failuresInARow,
              attempt.detail(),
              backoff.toMillis());
        }
        try {
          pause(backoff);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private synchronized int unsavedCount() {
      return unsaved;
    }

    private synchronized Work awaitWork(boolean batches) throws InterruptedException {
      while (!stopped) {
        long durable = journal.durablePosition();
        Urgent request = urgent.peekFirst();
        if (request != null && request.upTo() < durable) {
          return new Work(request, null, null);
        }
        if (!parked.isEmpty()) {
          return new Work(null, parked.peekFirst(), null);
        }
        Entry head = queue.peekFirst();
        if (head != null && head.position() < durable) {
          return new Work(null, null, nextEntries(head, durable, batches));
        }
        wait();
      }
      return null;
    }

    /**
     * The head erasure alone, or the turns from the head on, up to the delivery batch for a
     * provider that takes batches.
     */
    private List<Entry> nextEntries(Entry head, long durable, boolean batches) {
      if (head.erase() || settings.deliveryBatch() == 1 || !batches) {
        return List.of(head);
      }
      List<Entry> entries = new ArrayList<>();
      for (Entry entry : queue) {
        if (entry.erase()
            || entry.position() >= durable
            || entries.size() == settings.deliveryBatch()) {
          break;
        }
        entries.add(entry);
      }
      return entries;
    }

    private boolean takesBatches() {
      return members
          .find(providerId)
          .map(
              m -> {
                try {
                  return m.claims(Capability.BATCH_SYNC);
                } catch (RuntimeException e) {
                  return false;
                }
              })
          .orElse(false);
    }

    /** Waits out a backoff, cut short by an urgent erasure or by close. */
    private synchronized void pause(Duration backoff) throws InterruptedException {
      long until = System.nanoTime() + backoff.toNanos();
      while (!stopped) {
        Urgent request = urgent.peekFirst();
        if (request != null && request.upTo() < journal.durablePosition()) {
          return;
        }
        long left = until - System.nanoTime();
        if (left <= 0) {
          return;
        }
        wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      }
    }

    /** Books an attempt. */
    private synchronized void complete(Work work, Attempt attempt) {
      if (work.urgent() != null) {
        urgent.remove(work.urgent());
        if (attempt.done()) {
          String owner = work.urgent().owner();
          parked.removeIf(p -> p.owner().equals(owner));
          queue.removeIf(
              e -> e.erase() && e.owner().equals(owner) && e.position() <= work.urgent().upTo());
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
    private synchronized void complete(List<Entry> entries, List<Attempt> attempts) {
      for (int i = 0; i < attempts.size(); i++) {
        Attempt attempt = attempts.get(i);
        if (!attempt.done()) {
          failedAttempts++;
          lastError = attempt.detail();
          return;
        }
        Entry entry = entries.get(i);
        if (removeFirst(queue, entry) && !entry.erase()) {
          pendingTurns--;
        }
        if (entry.erase()) {
          erased++;
        } else if (DELIVERED.equals(attempt.outcome())) {
          delivered++;
        }
        unsaved++;
      }
    }

    private <T> boolean removeFirst(ArrayDeque<T> deque, T item) {
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

    private Attempt perform(Work work) {
      return forget(work.urgent() != null ? work.urgent().owner() : work.parked().owner());
    }

    /**
     * Attempts of the entries from the first, in order; the last one may have failed, and the
     * entries after it were not tried.
     */
    private List<Attempt> perform(List<Entry> entries) {
      Entry first = entries.get(0);
      return first.erase() ? List.of(forget(first.owner())) : deliver(entries);
    }

    /**
     * Hands the turns to the provider in one call ({@code syncTurns}), or one by one when there is
     * one or the batch call fails: then every turn gets its own attempt, and a poison turn holds up
     * only itself and the turns after it, as without batches.
     */
    private List<Attempt> deliver(List<Entry> entries) {
      List<Turn> turns = new ArrayList<>(entries.size()); // null: a damaged record, skipped
      Attempt readFailure = null;
      for (Entry entry : entries) {
        try {
          ByteBuffer body = journal.read(entry.position(), entry.at());
          turns.add(JournalRecord.decode(body).turn());
        } catch (CorruptRecordException e) {
          log.error(
              "Outbox record {} for provider {} cannot be read and is skipped: {}",
              entry.position(),
              providerId,
              e.getMessage());
          turns.add(null);
        } catch (IOException e) {
          readFailure = new Attempt(FAILED, 0, "cannot read the journal: " + e, false);
          break;
        }
      }
      Optional<StackMember> member = members.find(providerId);
      if (member.isEmpty()) {
        return List.of(new Attempt(FAILED, 0, "provider " + providerId + " is not running", false));
      }
      StackMember m = member.get();
      List<Attempt> attempts = new ArrayList<>(entries.size());
      List<Turn> batch = turns.stream().filter(Objects::nonNull).toList();
      boolean batched = false;
      if (batch.size() > 1) {
        try {
          calls.run(m, ProviderCalls.SYNC_TURNS, () -> m.provider().syncTurns(batch));
          batched = true;
        } catch (Throwable e) {
          rethrowFatal(e);
          log.debug(
              "Provider {} failed a batch of {} turns ({}); delivering them one by one",
              providerId,
              batch.size(),
              Failures.describe(e));
        }
      }
      for (int i = 0; i < turns.size(); i++) {
        Turn turn = turns.get(i);
        if (turn == null) {
          attempts.add(
              new Attempt(SKIPPED, 0, "record " + entries.get(i).position() + " is damaged", true));
        } else if (batched) {
          attempts.add(new Attempt(DELIVERED, 0, null, true));
        } else {
          try {
            calls.run(m, ProviderCalls.SYNC_TURN, () -> m.provider().syncTurn(turn));
            attempts.add(new Attempt(DELIVERED, 0, null, true));
          } catch (Throwable e) {
            rethrowFatal(e);
            attempts.add(new Attempt(FAILED, 0, Failures.describe(e), false));
            return attempts;
          }
        }
      }
      if (readFailure != null) {
        attempts.add(readFailure);
      }
      return attempts;
    }

    private Attempt forget(String ownerKey) {
      Optional<StackMember> member = members.find(providerId);
      if (member.isEmpty()) {
        return new Attempt(
            ProviderErasure.QUEUED,
            0,
            "provider " + providerId + " is not running; the erasure waits for it",
            false);
      }
      StackMember m = member.get();
      if (!canForget(m)) {
        return new Attempt(
            ProviderErasure.UNSUPPORTED,
            0,
            "provider " + providerId + " cannot forget owners",
            true);
      }
      OwnerKey owner = OwnerKey.of(ownerKey);
      try {
        long removed = calls.call(m, ProviderCalls.FORGET, () -> m.provider().forget(owner));
        return new Attempt(ProviderErasure.ERASED, Math.max(0, removed), null, true);
      } catch (Throwable e) {
        rethrowFatal(e);
        return new Attempt(
            ProviderErasure.ERROR,
            0,
            Failures.describe(e) + "; the erasure stays queued and is retried",
            false);
      }
    }

    private String describe(Work work) {
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

    private Duration backoff(int failuresInARow) {
      Duration max = sync.maxBackoff();
      Duration wait = sync.initialBackoff();
      for (int i = 1; i < failuresInARow && wait.compareTo(max) < 0; i++) {
        wait = wait.multipliedBy(2);
      }
      return wait.compareTo(max) > 0 ? max : wait;
    }
  }

  private static void rethrowFatal(Throwable e) {
    if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
      throw (VirtualMachineError) e;
    }
  }
}
