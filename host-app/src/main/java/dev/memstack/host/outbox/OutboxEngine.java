package dev.memstack.host.outbox;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The turn outbox, whatever {@link Journal} keeps its records: the one engine behind {@code
 * memstack.outbox.type=journal} ({@link FileJournal}), {@code memory} ({@link MemoryJournal}) and
 * {@code postgres} ({@link PostgresJournal}, shared by every host of a deployment).
 *
 * <p>One class on purpose (~970 lines): admission, erasure, replay and maintenance order their
 * journal appends under one lock over the same lanes and cursors, locally or over a shared journal;
 * {@link Lane} is apart already.
 *
 * <p>Over a {@link SharedJournal} this host is one writer among several: a provider has one lane
 * per shard ({@code provider#shard}, records sharded by owner), and a lane delivers only while this
 * host holds its lease, reading its records from the journal; appends are not handed to lanes but
 * wake the lane of their shard (other hosts' appends wake it through the journal's notifications).
 * Admission counts the shared backlog, an erasure waits for the lanes of the owner's shard on
 * whichever host holds them, and the backlog reports every host's pending records and this host's
 * deliveries (redeliveries after a lane changed hands included).
 *
 * <p>An accepted turn is appended to the journal, naming its recipients (the providers enabled when
 * it was accepted), and {@link #enqueue} returns once the record is durable. Each provider id has a
 * {@link Lane}: a queue and one daemon thread that delivers its records in journal order, in
 * batches to providers that claim {@code BATCH_SYNC}, looking the provider up by id at delivery
 * time and retrying with exponential backoff while it is not running or throws; delivery is at
 * least once, and providers store a turn once by its id. An owner erasure is an {@code ERASE}
 * record: the owner's earlier turns still waiting for a recipient are dropped, in every journal,
 * and the erasure is tried at once and kept, per provider, until that provider has done it. A
 * maintenance thread parks erasures that wait for an absent provider in its cursor, saves idle
 * cursors and frees the journal's storage once every lane is past it. Past {@code
 * memstack.outbox.max-pending} turns waiting for one provider or {@code max-journal-size} bytes,
 * new turns are refused with {@link TurnOutboxFullException}.
 *
 * <p>With a persistent journal a restart replays it from the cursors, so every acknowledged turn
 * reaches its recipients; with the memory journal {@link #close()} waits up to {@code
 * shutdown-grace} for the queues to drain, and what is still queued then is lost (logged).
 */
public final class OutboxEngine implements TurnOutbox, OwnerEraser {

  private static final Logger log = LoggerFactory.getLogger(OutboxEngine.class);

  /** How often maintenance runs when nothing wakes it. */
  private static final long MAINTENANCE_INTERVAL_MILLIS = 1_000;

  /**
   * The backlog of one provider, beyond {@link OutboxStats}.
   *
   * @param id the provider id
   * @param stats pending count (turns and erasures), oldest age, delivered turns, failed attempts,
   *     last error
   * @param pendingTurns turns waiting
   * @param pendingErasures erasures waiting
   * @param erased erasures the provider did since start
   * @param redelivered turns delivered again since start because the lane's last holder may have
   *     delivered them already (it stopped or lost the lane while delivering them); 0 over a local
   *     journal
   */
  public record Backlog(
      String id,
      OutboxStats stats,
      int pendingTurns,
      int pendingErasures,
      long erased,
      long redelivered) {}

  /**
   * The journal's storage.
   *
   * @param type {@code journal}, {@code memory} or {@code postgres}
   * @param segments storage units (segment files)
   * @param bytes bytes held
   * @param maxBytes {@code memstack.outbox.max-journal-size}
   * @param nextPosition the position the next record gets (records accepted)
   * @param fsync whether records are forced to disk before they are acknowledged
   */
  public record JournalStats(
      String type, int segments, long bytes, long maxBytes, long nextPosition, boolean fsync) {}

  private final Journal journal;

  /** The journal when other hosts share it, else {@code null}. */
  private final SharedJournal shared;

  private final OutboxProperties settings;
  private final StackMembers members;
  private final ProviderCalls calls;
  private final Clock clock;
  private final Backoff backoff;
  private final Map<String, Lane> lanes = new ConcurrentHashMap<>();

  /** Owners whose turns before a position are still to be erased from the journal's storage. */
  private final Map<String, Long> unexpunged = new ConcurrentHashMap<>();

  private final Object appendLock = new Object();
  private final Thread maintainer;
  private final Object maintenanceMonitor = new Object();
  private volatile boolean closed;
  private volatile boolean stopped;

  /** The last journal write that failed, while no later one has succeeded; else {@code null}. */
  private volatile WriteFailure writeFailure;

  /** A failed journal write: what went wrong and when. */
  private record WriteFailure(String error, Instant at) {}

  /**
   * How long a failed journal write makes {@link #refusal()} report it, unless a write succeeds.
   */
  static final Duration WRITE_FAILURE_HOLD = Duration.ofSeconds(30);

  /** Room the journal must have left to take a turn, for {@link #refusal()}. */
  static final long MIN_ROOM_BYTES = 1024;

  /**
   * Every record before this position has been handed to its lanes (written under the append lock),
   * so a lane with an empty queue is done with all of them; the journal's own next position may
   * already count a record that is still on its way to a lane.
   */
  private volatile long handedOut;

  /** Maintenance passes so far (the maintenance thread's alone). */
  private long maintenancePasses;

  /** The durable position up to which the lanes were last woken. */
  private final AtomicLong wokenAt = new AtomicLong();

  private OutboxEngine(
      Journal journal,
      OutboxProperties settings,
      StackMembers members,
      ProviderCalls calls,
      Clock clock)
      throws IOException {
    this.journal = journal;
    this.settings = settings;
    this.members = members;
    this.calls = calls;
    this.clock = clock;
    this.backoff = new Backoff(settings.initialBackoff(), settings.maxBackoff());
    this.shared = journal instanceof SharedJournal s ? s : null;
    if (shared != null) {
      // a shared journal's lanes read their records when they take their lease: no replay
      discoverLanes();
      for (StackMember member : members.enabled()) {
        sharedLanes(member.id()); // so that leases spread before the first turn
      }
      shared.onAppend(this::wakeShard);
    } else {
      for (Map.Entry<String, Journal.Cursor> saved : journal.cursors().entrySet()) {
        Lane lane = newLane(saved.getKey(), saved.getKey(), saved.getValue().next());
        lane.restore(saved.getValue());
        lanes.put(lane.laneId, lane);
      }
      journal.replay(this::replay);
      long next = journal.nextPosition();
      handedOut = next;
      for (Lane lane : lanes.values()) {
        lane.openedAt(next);
        lane.start();
      }
    }
    this.maintainer = new Thread(this::maintainLoop, "memstack-outbox-cleaner");
    maintainer.setDaemon(true);
    maintainer.start();
    if (shared != null) {
      log.info(
          "Turn outbox opened at {} as host {}: {} lane(s) over {} shard(s)",
          journal.describe(),
          shared.hostId(),
          lanes.size(),
          shared.shards());
    } else if (journal.persistent()) {
      int pending = lanes.values().stream().mapToInt(Lane::pendingTurns).sum();
      log.info(
          "Turn outbox opened at {}: {} segment(s), {} turn deliveries pending over {}"
              + " provider(s)",
          journal.describe(),
          journal.segments(),
          pending,
          lanes.size());
    }
  }

  /**
   * Starts delivery from {@code journal}, after replaying what it kept; the engine closes the
   * journal when it is closed.
   *
   * @throws java.io.UncheckedIOException when the journal cannot be replayed
   */
  public static OutboxEngine start(
      Journal journal, OutboxProperties settings, StackMembers members, ProviderCalls calls) {
    return start(journal, settings, members, calls, Clock.systemUTC());
  }

  /**
   * Same as {@link #start(Journal, OutboxProperties, StackMembers, ProviderCalls)} with a clock.
   */
  public static OutboxEngine start(
      Journal journal,
      OutboxProperties settings,
      StackMembers members,
      ProviderCalls calls,
      Clock clock) {
    Objects.requireNonNull(journal, "journal");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(members, "members");
    Objects.requireNonNull(calls, "calls");
    Objects.requireNonNull(clock, "clock");
    try {
      return new OutboxEngine(journal, settings, members, calls, clock);
    } catch (IOException | RuntimeException e) {
      journal.close();
      if (e instanceof IOException io) {
        throw new java.io.UncheckedIOException(
            "cannot replay the turn outbox at " + journal.describe() + ": " + io, io);
      }
      throw (RuntimeException) e;
    }
  }

  /**
   * An engine over the {@link FileJournal} in {@code dir} ({@code memstack.outbox.type=journal}).
   *
   * @throws java.io.UncheckedIOException when the journal cannot be read or created
   * @throws IllegalStateException when another process has it open
   */
  public static OutboxEngine onDisk(
      Path dir, OutboxProperties settings, StackMembers members, ProviderCalls calls, Clock clock) {
    Journal journal = FileJournal.open(dir, settings.segmentSize().toBytes(), settings.fsync());
    return start(journal, settings, members, calls, clock);
  }

  /** Same as {@link #onDisk(Path, OutboxProperties, StackMembers, ProviderCalls, Clock)}. */
  public static OutboxEngine onDisk(
      Path dir, OutboxProperties settings, StackMembers members, ProviderCalls calls) {
    return onDisk(dir, settings, members, calls, Clock.systemUTC());
  }

  /** An engine over a new {@link MemoryJournal} ({@code memstack.outbox.type=memory}). */
  public static OutboxEngine inMemory(
      OutboxProperties settings, StackMembers members, ProviderCalls calls, Clock clock) {
    return start(new MemoryJournal(), settings, members, calls, clock);
  }

  /**
   * Same as {@link #inMemory(OutboxProperties, StackMembers, ProviderCalls, Clock)}, system clock.
   */
  public static OutboxEngine inMemory(
      OutboxProperties settings, StackMembers members, ProviderCalls calls) {
    return inMemory(settings, members, calls, Clock.systemUTC());
  }

  // ---- TurnOutbox ----

  /**
   * Appends the turn to the journal and returns once it is durable.
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
    JournalRecord record = JournalRecord.turn(turn, clock.instant(), recipients);
    byte[] body = record.encode();
    try {
      Journal.Entry entry;
      if (shared != null) {
        // appends of several hosts (and threads) meet in the journal, ordered per shard there
        admitShared(recipients, body.length);
        entry = journal.append(record.header(), body);
        writeFailure = null;
        for (String id : recipients) {
          appendedSince.computeIfAbsent(id, key -> new AtomicLong()).incrementAndGet();
          sharedLane(id, entry.owner()).wake();
        }
        return;
      }
      synchronized (appendLock) {
        admit(recipients, body.length);
        entry = journal.append(record.header(), body);
        for (String id : recipients) {
          lane(id, entry.position()).addTurn(entry);
        }
        handedOut = entry.position() + 1;
      }
      awaitDurable(entry.position());
      if (writeFailure != null) {
        writeFailure = null;
      }
    } catch (IOException e) {
      writeFailure = new WriteFailure(e.toString(), clock.instant());
      log.error(
          "Could not write turn {} to the outbox journal at {}",
          turn.turnId(),
          journal.describe(),
          e);
      throw new TurnOutboxFullException(
          null, "the turn journal cannot be written right now; try again later");
    }
  }

  /** Refuses a record that would pass {@code max-pending} or {@code max-journal-size}. */
  private void admit(List<String> recipients, int bodyBytes) {
    for (String id : recipients) {
      Lane lane = lanes.get(id);
      if (lane != null && lane.pendingTurns() >= settings.maxPending()) {
        throw new TurnOutboxFullException(id, settings.maxPending());
      }
    }
    admitBytes(bodyBytes);
  }

  /**
   * {@link #admit} over the backlog of every host, as the shared journal last counted it, plus the
   * turns this host appended since (so that a burst on one host cannot overrun the bound by a
   * second's worth; other hosts' turns of the last second may).
   */
  private void admitShared(List<String> recipients, int bodyBytes) {
    SharedJournal.State state = shared.state();
    if (state != admittedState) {
      synchronized (appendedSince) {
        if (state != admittedState) {
          appendedSince.clear();
          admittedState = state;
        }
      }
    }
    for (String id : recipients) {
      SharedJournal.Pending backlog = state.pending().get(id);
      AtomicLong mine = appendedSince.get(id);
      long waiting = (backlog == null ? 0 : backlog.turns()) + (mine == null ? 0 : mine.get());
      if (waiting >= settings.maxPending()) {
        throw new TurnOutboxFullException(id, settings.maxPending());
      }
    }
    admitBytes(bodyBytes);
  }

  /** Turns this host appended for each provider since {@link #admittedState} was counted. */
  private final Map<String, AtomicLong> appendedSince = new ConcurrentHashMap<>();

  private volatile SharedJournal.State admittedState;

  private void admitBytes(int bodyBytes) {
    long maxBytes = settings.maxJournalSize().toBytes();
    long bytes = journal.bytes();
    if (bytes + bodyBytes + SegmentLog.FRAME_HEADER_BYTES > maxBytes) {
      wakeMaintenance();
      throw new TurnOutboxFullException(
          null,
          "the turn journal is full ("
              + bytes
              + " of "
              + maxBytes
              + " bytes, memstack.outbox.max-journal-size); try again later");
    }
  }

  /**
   * Waits until the record is durable, then wakes the lanes once per durable position reached (a
   * group commit makes many records durable at once: their appenders do not each wake every lane).
   */
  private void awaitDurable(long position) throws IOException {
    journal.awaitDurable(position);
    long durable = journal.durablePosition();
    long seen = wokenAt.get();
    while (durable > seen) {
      if (wokenAt.compareAndSet(seen, durable)) {
        for (Lane lane : lanes.values()) {
          lane.wake();
        }
        return;
      }
      seen = wokenAt.get();
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

  /**
   * The backlog of every provider id that has ever had a record, sorted by id; over a shared
   * journal the pending counts are every host's (as last counted) and the deliveries this host's.
   */
  public List<Backlog> backlog() {
    Instant now = clock.instant();
    if (shared == null) {
      return lanes.keySet().stream().sorted().map(id -> lanes.get(id).backlog(now)).toList();
    }
    Map<String, List<Backlog>> local = new java.util.TreeMap<>();
    for (Lane lane : lanes.values()) {
      local.computeIfAbsent(lane.providerId, id -> new ArrayList<>()).add(lane.backlog(now));
    }
    Map<String, SharedJournal.Pending> pending = shared.state().pending();
    Set<String> ids = new java.util.TreeSet<>(local.keySet());
    ids.addAll(pending.keySet());
    List<Backlog> backlog = new ArrayList<>();
    for (String id : ids) {
      SharedJournal.Pending waiting =
          pending.getOrDefault(id, new SharedJournal.Pending(0, 0, Long.MAX_VALUE));
      long delivered = 0;
      long failed = 0;
      long erased = 0;
      long redelivered = 0;
      String lastError = null;
      for (Backlog lane : local.getOrDefault(id, List.of())) {
        delivered += lane.stats().delivered();
        failed += lane.stats().failedAttempts();
        erased += lane.erased();
        redelivered += lane.redelivered();
        if (lastError == null) {
          lastError = lane.stats().lastError();
        }
      }
      Duration age =
          waiting.oldestAcceptedMillis() == Long.MAX_VALUE
              ? Duration.ZERO
              : Duration.ofMillis(Math.max(0, now.toEpochMilli() - waiting.oldestAcceptedMillis()));
      int turns = (int) Math.min(Integer.MAX_VALUE, waiting.turns());
      int erasures = (int) Math.min(Integer.MAX_VALUE, waiting.erasures());
      OutboxStats stats =
          new OutboxStats(
              (int) Math.min(Integer.MAX_VALUE, (long) turns + erasures),
              age,
              delivered,
              failed,
              lastError);
      backlog.add(new Backlog(id, stats, turns, erasures, erased, redelivered));
    }
    return backlog;
  }

  /**
   * What the hosts sharing the journal see: live hosts, the backlog per provider and who holds
   * which lane; empty over a local journal.
   */
  public Optional<SharedJournal.State> sharedState() {
    return shared == null ? Optional.empty() : Optional.of(shared.state());
  }

  /** The journal's storage. */
  public JournalStats journalStats() {
    return new JournalStats(
        shared != null ? "postgres" : journal.persistent() ? "journal" : "memory",
        journal.segments(),
        journal.bytes(),
        settings.maxJournalSize().toBytes(),
        journal.nextPosition(),
        shared != null || (journal.persistent() && settings.fsync()));
  }

  /**
   * Why the outbox cannot take any turn right now, whatever its recipients, or empty while it can:
   * it is closed, its last journal write failed (reported for {@link #WRITE_FAILURE_HOLD} unless a
   * later write succeeds, so that a host taken out of routing is tried again), or the journal has
   * less than {@link #MIN_ROOM_BYTES} left below {@code max-journal-size}. A provider with {@code
   * max-pending} turns waiting is no reason here: that is the provider's trouble, not the host's.
   */
  public Optional<String> refusal() {
    if (closed) {
      return Optional.of("the turn outbox is closed");
    }
    WriteFailure failure = writeFailure;
    if (failure != null && failure.at().plus(WRITE_FAILURE_HOLD).isAfter(clock.instant())) {
      return Optional.of(
          "the last write to the turn journal failed at " + failure.at() + ": " + failure.error());
    }
    long maxBytes = settings.maxJournalSize().toBytes();
    long bytes = journal.bytes();
    if (bytes + MIN_ROOM_BYTES > maxBytes) {
      return Optional.of(
          "the turn journal is full ("
              + bytes
              + " of "
              + maxBytes
              + " bytes, memstack.outbox.max-journal-size)");
    }
    return Optional.empty();
  }

  // ---- OwnerEraser ----

  /**
   * Journals an erasure of {@code owner} for every configured provider (enabled or not), drops the
   * owner's turns still waiting for them, and waits up to {@code memstack.outbox.erase-wait} for
   * the running ones to erase the owner; every provider that has not done it by then keeps it
   * queued. The owner's turns are erased from the journal's storage before this returns ({@link
   * Journal#expunge}; should that fail, maintenance retries it).
   */
  @Override
  public OwnerErasure erase(OwnerKey owner) {
    Objects.requireNonNull(owner, "owner");
    if (closed) {
      throw new IllegalStateException("the turn outbox is closed");
    }
    Set<String> ids = new LinkedHashSet<>();
    Set<String> unsupported = new LinkedHashSet<>();
    for (StackMember member : members.enabled()) {
      ids.add(member.id());
      if (!Delivery.canForget(member)) {
        unsupported.add(member.id());
      }
    }
    ids.addAll(members.disabled());
    List<String> recipients = List.copyOf(ids);
    if (recipients.isEmpty()) {
      return new OwnerErasure(owner, List.of());
    }
    JournalRecord record = JournalRecord.erase(owner, clock.instant(), recipients);
    if (shared != null) {
      return eraseShared(owner, record, recipients, unsupported);
    }
    byte[] body = record.encode();
    Map<String, Integer> dropped = new LinkedHashMap<>();
    Map<String, CompletableFuture<Attempt>> attempts = new LinkedHashMap<>();
    try {
      Journal.Entry entry;
      synchronized (appendLock) {
        // an erasure is always admitted: it only ever shrinks what waits
        entry = journal.append(record.header(), body);
        for (String id : recipients) {
          Lane.Urgent urgent = null;
          if (!unsupported.contains(id)) {
            urgent = new Lane.Urgent(owner.value(), entry.position(), new CompletableFuture<>());
            attempts.put(id, urgent.result());
          }
          dropped.put(id, lane(id, entry.position()).addErase(entry, urgent));
        }
        handedOut = entry.position() + 1;
      }
      awaitDurable(entry.position());
      expunge(owner.value(), entry.position());
    } catch (IOException e) {
      log.error(
          "Could not write the erasure of an owner to the outbox journal at {}",
          journal.describe(),
          e);
      throw new TurnOutboxFullException(
          null, "the turn journal cannot be written right now; try again later");
    }
    long deadline = System.nanoTime() + settings.eraseWait().toNanos();
    return outcomes(
        owner,
        recipients,
        unsupported,
        dropped,
        id -> await(attempts.get(id), deadline),
        "busy or backing off");
  }

  /**
   * {@link #erase} over a shared journal: the erasure goes to the owner's shard; the owner's
   * undelivered turns are counted and deleted from the journal; a lane this host holds tries the
   * erasure at once, and one another host holds is done when its saved cursor is past the erasure
   * (its outcome then reads {@code erased} with no count of what was removed).
   */
  private OwnerErasure eraseShared(
      OwnerKey owner, JournalRecord record, List<String> recipients, Set<String> unsupported) {
    Journal.Entry entry;
    Map<String, Integer> dropped;
    Map<String, CompletableFuture<Attempt>> attempts = new LinkedHashMap<>();
    try {
      entry = journal.append(record.header(), record.encode());
      dropped = shared.undone(owner.value(), entry.position());
      for (String id : recipients) {
        Lane lane = sharedLane(id, owner.value());
        Lane.Urgent urgent = null;
        if (!unsupported.contains(id) && lane.leased()) {
          urgent = new Lane.Urgent(owner.value(), entry.position(), new CompletableFuture<>());
          attempts.put(id, urgent.result());
        }
        lane.addErase(entry, urgent);
        lane.wake();
      }
      expunge(owner.value(), entry.position());
    } catch (IOException e) {
      log.error(
          "Could not write the erasure of an owner to the outbox at {}", journal.describe(), e);
      throw new TurnOutboxFullException(
          null, "the turn journal cannot be written right now; try again later");
    }
    long deadline = System.nanoTime() + settings.eraseWait().toNanos();
    long position = entry.position();
    return outcomes(
        owner,
        recipients,
        unsupported,
        dropped,
        id ->
            awaitShared(
                attempts.get(id),
                SharedJournal.laneId(id, SharedJournal.shardOf(owner.value(), shared.shards())),
                owner.value(),
                position,
                deadline),
        "busy, backing off or not running");
  }

  /**
   * The erasure's answer, provider by provider: {@code unsupported} for those that cannot forget,
   * {@code queued} for those whose {@code attempt} is {@code null} (not done by the deadline, for
   * the reason {@code busy}), otherwise the attempt's outcome; each with its dropped pending turns.
   */
  private OwnerErasure outcomes(
      OwnerKey owner,
      List<String> recipients,
      Set<String> unsupported,
      Map<String, Integer> dropped,
      java.util.function.Function<String, Attempt> attempt,
      String busy) {
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
      Attempt done = attempt.apply(id);
      if (done == null) {
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
                    + " ms ("
                    + busy
                    + "); the erasure stays queued"));
        continue;
      }
      outcomes.add(
          new ProviderErasure(id, done.outcome(), done.removed(), droppedPending, done.detail()));
    }
    log.info(
        "Erased an owner: {}", outcomes.stream().map(o -> o.id() + "=" + o.outcome()).toList());
    return new OwnerErasure(owner, outcomes);
  }

  /**
   * Waits for this host's attempt, or for the lane's saved cursor (whoever holds it) to pass the
   * erasure without parking it; {@code null} when neither happened by the deadline.
   */
  private Attempt awaitShared(
      CompletableFuture<Attempt> attempt, String lane, String owner, long position, long deadline) {
    while (true) {
      if (attempt != null && attempt.isDone()) {
        return await(attempt, deadline);
      }
      try {
        SharedJournal.Taken saved = shared.taken(lane);
        if (saved.cursor().next() > position
            && saved.cursor().parked().stream().noneMatch(p -> p.owner().equals(owner))) {
          return new Attempt(ProviderErasure.ERASED, 0, null, true);
        }
      } catch (IOException e) {
        log.debug("Cannot read the outbox lane {}: {}", lane, e.toString());
      }
      if (System.nanoTime() - deadline >= 0) {
        return null;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  /**
   * Refuses new records; with the memory journal gives the queues up to {@code
   * memstack.outbox.shutdown-grace} to drain; lets every delivery thread finish the provider call
   * it is in (never interrupting it) for up to the grace period, saves every cursor and closes the
   * journal. A persistent journal loses nothing: what is pending is delivered after the next start.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    long until = System.nanoTime() + Math.max(settings.shutdownGrace().toNanos(), 100_000_000L);
    if (!journal.persistent()) {
      drain(until);
    }
    stopped = true;
    wakeMaintenance();
    for (Lane lane : lanes.values()) {
      lane.stop();
    }
    for (Lane lane : lanes.values()) {
      if (!lane.join(until)) {
        log.warn(
            "Provider {} is still in a delivery call at shutdown; it is left to finish",
            lane.providerId);
      }
    }
    try {
      maintainer.join(1_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Lane lane : lanes.values()) {
      lane.save(true);
      int left = lane.pending();
      if (left > 0 && !journal.persistent()) {
        log.warn(
            "{} turns or erasures for provider {} were not delivered before shutdown and are lost"
                + " (memstack.outbox.type=memory)",
            left,
            lane.providerId);
      }
    }
    journal.close();
  }

  private void drain(long untilNanos) {
    while (System.nanoTime() < untilNanos
        && lanes.values().stream().anyMatch(l -> l.pending() > 0)) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  // ---- internals ----

  /** Rebuilds the queues from one kept record (at start). */
  private void replay(Journal.Entry entry) {
    for (String id : entry.header().recipients()) {
      Lane lane = lanes.computeIfAbsent(id, key -> newLane(key, key, 0));
      if (entry.position() < lane.start) {
        continue;
      }
      if (entry.erase()) {
        unexpunged.merge(entry.owner(), entry.position(), Math::max);
        lane.addErase(entry, null);
      } else {
        lane.addTurn(entry);
      }
    }
  }

  private Lane newLane(String id, String laneId, long start) {
    return new Lane(
        id,
        laneId,
        start,
        shared != null ? () -> 0L : () -> handedOut,
        journal,
        new Delivery(id, members, calls, journal),
        settings.deliveryBatch(),
        backoff);
  }

  /** The lane of {@code id}, created and started for a record at {@code position} if new. */
  private Lane lane(String id, long position) {
    return lanes.computeIfAbsent(
        id,
        key -> {
          Lane lane = newLane(key, key, position);
          lane.openedAt(position);
          lane.start();
          return lane;
        });
  }

  /**
   * The lane of {@code provider} over the owner's shard; the provider's lanes of every shard are
   * created and started if new.
   */
  private Lane sharedLane(String provider, String owner) {
    String id = SharedJournal.laneId(provider, SharedJournal.shardOf(owner, shared.shards()));
    Lane lane = lanes.get(id);
    if (lane == null) {
      sharedLanes(provider);
      lane = lanes.get(id);
    }
    return lane;
  }

  private void sharedLanes(String provider) {
    for (int shard = 0; shard < shared.shards(); shard++) {
      lanes.computeIfAbsent(
          SharedJournal.laneId(provider, shard),
          id -> {
            Lane lane = newLane(provider, id, 0);
            if (!closed) {
              lane.start();
            }
            return lane;
          });
    }
  }

  /** Creates the lanes of every provider the shared journal has lanes for. */
  private void discoverLanes() {
    Set<String> providers = new java.util.TreeSet<>();
    for (String id : journal.cursors().keySet()) {
      if (id.equals(
          SharedJournal.laneId(SharedJournal.providerOf(id), SharedJournal.shardOfLane(id)))) {
        providers.add(SharedJournal.providerOf(id));
      }
    }
    providers.forEach(this::sharedLanes);
  }

  private void wakeShard(int shard) {
    for (Lane lane : lanes.values()) {
      if (SharedJournal.shardOfLane(lane.laneId) == shard) {
        lane.wake();
      }
    }
  }

  private void wakeMaintenance() {
    synchronized (maintenanceMonitor) {
      maintenanceMonitor.notifyAll();
    }
  }

  private void maintainLoop() {
    while (!stopped) {
      try {
        maintain();
      } catch (RuntimeException e) {
        log.warn("Outbox maintenance failed: {}", e.toString());
      }
      synchronized (maintenanceMonitor) {
        if (stopped) {
          return;
        }
        try {
          maintenanceMonitor.wait(MAINTENANCE_INTERVAL_MILLIS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /**
   * One maintenance pass: parks erasures that hold sealed storage, frees the storage every lane is
   * past, saves stale cursors. Package-visible for tests.
   */
  void maintain() {
    unexpunged.forEach(this::expunge);
    if (shared != null) {
      if (++maintenancePasses % 5 == 0) {
        discoverLanes(); // providers another host appended for first
      }
      for (Lane lane : lanes.values()) {
        lane.parkIfHolding(Long.MAX_VALUE);
      }
      int freed = shared.compactDone();
      if (freed > 0) {
        log.debug("Freed {} delivered outbox record(s)", freed);
      }
      for (Lane lane : lanes.values()) {
        lane.saveIfStale();
      }
      return;
    }
    long sealedBefore = journal.sealedBefore();
    for (Lane lane : lanes.values()) {
      lane.parkIfHolding(sealedBefore);
    }
    // Read before the cursors: a lane created after this only has records from here on.
    long next = handedOut;
    long lowest = next;
    for (Lane lane : lanes.values()) {
      lowest = Math.min(lowest, lane.cursor(next));
    }
    int freed = journal.compact(lowest);
    if (freed > 0) {
      log.debug("Freed {} delivered outbox segment(s)", freed);
    }
    for (Lane lane : lanes.values()) {
      lane.saveIfStale();
    }
  }

  /**
   * Erases the owner's turns before {@code before} from the journal's storage; on failure keeps it
   * for the next maintenance pass.
   */
  private void expunge(String owner, long before) {
    try {
      int erased = journal.expunge(owner, before);
      unexpunged.remove(owner, before);
      if (erased > 0) {
        log.debug("Erased {} turn record(s) of an owner from the outbox journal", erased);
      }
    } catch (IOException | RuntimeException e) {
      unexpunged.merge(owner, before, Math::max);
      log.error(
          "Could not erase an owner's turns from the outbox journal at {} ({}); retrying",
          journal.describe(),
          e.toString());
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
}
