package dev.memstack.outbox;

import dev.memstack.outbox.DeliveryPort.Recipient;
import dev.memstack.outbox.journal.FileJournal;
import dev.memstack.outbox.journal.Journal;
import dev.memstack.outbox.journal.JournalRecord;
import dev.memstack.outbox.journal.MemoryJournal;
import dev.memstack.outbox.journal.SharedJournal;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import dev.memstack.support.Require;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The turn outbox, whatever {@link Journal} keeps its records: the one engine behind {@code
 * memstack.outbox.type=journal} ({@link FileJournal}), {@code memory} ({@link MemoryJournal}) and
 * {@code postgres} ({@link PostgresJournal}, shared by every host of a deployment).
 *
 * <p>How records reach lanes is a {@link DeliveryStrategy}: {@link LocalDelivery} over a journal
 * only this host writes, {@link SharedDelivery} over a {@link SharedJournal} that several hosts
 * append to and deliver from. Providers are reached through the host's {@link DeliveryPort}.
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
 * memstack.outbox.max-pending} turns waiting for one required provider or {@code max-journal-size}
 * bytes, new turns are refused with {@link TurnOutboxFullException}; an optional provider ({@link
 * ProviderPolicy}) never refuses turns, its oldest ones are dropped past its {@code max-backlog}.
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

  final Journal journal;
  final OutboxSettings settings;
  final DeliveryPort port;
  private final Clock clock;
  final Backoff backoff;
  private final DeadLetters deadLetters;
  final BacklogBounds bounds;

  /** The lanes by lane id, of whichever strategy. */
  final Map<String, Lane> lanes = new ConcurrentHashMap<>();

  private final DeliveryStrategy strategy;

  /** Owners whose turns before a position are still to be erased from the journal's storage. */
  private final Map<String, Long> unexpunged = new ConcurrentHashMap<>();

  private final Thread maintainer;
  private final Object maintenanceMonitor = new Object();
  final AtomicBoolean closed = new AtomicBoolean();
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

  private OutboxEngine(Journal journal, OutboxSettings settings, DeliveryPort port, Clock clock)
      throws IOException {
    this.journal = journal;
    this.settings = settings;
    this.port = port;
    this.clock = clock;
    this.backoff = new Backoff(settings.initialBackoff(), settings.maxBackoff());
    this.deadLetters = new DeadLetters(this, journal.deadLetters());
    this.bounds = new BacklogBounds(port);
    this.strategy =
        journal instanceof SharedJournal shared
            ? new SharedDelivery(this, shared)
            : new LocalDelivery(this);
    strategy.open();
    this.maintainer = new Thread(this::maintainLoop, "memstack-outbox-cleaner");
    maintainer.setDaemon(true);
    maintainer.start();
    strategy.logOpened();
  }

  /**
   * Starts delivery from {@code journal}, after replaying what it kept; the engine closes the
   * journal when it is closed.
   *
   * @throws java.io.UncheckedIOException when the journal cannot be replayed
   */
  public static OutboxEngine start(Journal journal, OutboxSettings settings, DeliveryPort port) {
    return start(journal, settings, port, Clock.systemUTC());
  }

  /** Same as {@link #start(Journal, OutboxSettings, DeliveryPort)} with a clock. */
  public static OutboxEngine start(
      Journal journal, OutboxSettings settings, DeliveryPort port, Clock clock) {
    Require.nonNull("journal settings port clock", journal, settings, port, clock);
    try {
      return new OutboxEngine(journal, settings, port, clock);
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
      Path dir, OutboxSettings settings, DeliveryPort port, Clock clock) {
    Journal journal = FileJournal.open(dir, settings.segmentSizeBytes(), settings.fsync());
    return start(journal, settings, port, clock);
  }

  /** Same as {@link #onDisk(Path, OutboxSettings, DeliveryPort, Clock)}. */
  public static OutboxEngine onDisk(Path dir, OutboxSettings settings, DeliveryPort port) {
    return onDisk(dir, settings, port, Clock.systemUTC());
  }

  /** An engine over a new {@link MemoryJournal} ({@code memstack.outbox.type=memory}). */
  public static OutboxEngine inMemory(OutboxSettings settings, DeliveryPort port, Clock clock) {
    return start(new MemoryJournal(), settings, port, clock);
  }

  /** Same as {@link #inMemory(OutboxSettings, DeliveryPort, Clock)}, system clock. */
  public static OutboxEngine inMemory(OutboxSettings settings, DeliveryPort port) {
    return inMemory(settings, port, Clock.systemUTC());
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
    checkOpen();
    if (recipients.isEmpty()) {
      return;
    }
    JournalRecord record = JournalRecord.turn(turn, clock.instant(), recipients);
    try {
      strategy.enqueue(record, record.encode(), recipients);
      writeFailure = null;
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

  /** Refuses a record of {@code bodyBytes} that would pass {@code max-journal-size}. */
  void admitBytes(int bodyBytes) {
    long maxBytes = settings.maxJournalSizeBytes();
    long bytes = journal.bytes();
    if (bytes + bodyBytes + Journal.RECORD_OVERHEAD_BYTES > maxBytes) {
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
    return strategy.backlog(clock.instant());
  }

  /** How the outbox treats the provider's backlog, as the {@link DeliveryPort} reports it. */
  public ProviderPolicy policy(String providerId) {
    return bounds.policy(providerId);
  }

  /**
   * Turns of an optional provider dropped since start because more than its {@code max-backlog}
   * waited (over a shared journal: the drops this host made).
   */
  public long droppedTurns(String providerId) {
    return bounds.dropped(providerId);
  }

  /**
   * What the hosts sharing the journal see: live hosts, the backlog per provider and who holds
   * which lane; empty over a local journal.
   */
  public Optional<SharedJournal.State> sharedState() {
    return strategy.sharedState();
  }

  /** The journal's storage. */
  public JournalStats journalStats() {
    return new JournalStats(
        strategy.journalType(),
        journal.segments(),
        journal.bytes(),
        settings.maxJournalSizeBytes(),
        journal.nextPosition(),
        strategy.forced());
  }

  /** The turns providers would not take, parked out of their lanes. */
  public DeadLetters deadLetters() {
    return deadLetters;
  }

  /**
   * Why the outbox cannot take any turn right now, whatever its recipients, or empty while it can:
   * it is closed, its last journal write failed (reported for {@link #WRITE_FAILURE_HOLD} unless a
   * later write succeeds, so that a host taken out of routing is tried again), or the journal has
   * less than {@link #MIN_ROOM_BYTES} left below {@code max-journal-size}. A provider with {@code
   * max-pending} turns waiting is no reason here: that is the provider's trouble, not the host's.
   */
  public Optional<String> refusal() {
    if (closed.get()) {
      return Optional.of("the turn outbox is closed");
    }
    WriteFailure failure = writeFailure;
    if (failure != null && failure.at().plus(WRITE_FAILURE_HOLD).isAfter(clock.instant())) {
      return Optional.of(
          "the last write to the turn journal failed at " + failure.at() + ": " + failure.error());
    }
    long maxBytes = settings.maxJournalSizeBytes();
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
    checkOpen();
    Set<String> ids = new LinkedHashSet<>();
    Set<String> unsupported = new LinkedHashSet<>();
    for (Recipient member : port.enabled()) {
      ids.add(member.id());
      if (!LaneCalls.canForget(member)) {
        unsupported.add(member.id());
      }
    }
    ids.addAll(port.disabled());
    List<String> recipients = List.copyOf(ids);
    if (recipients.isEmpty()) {
      return new OwnerErasure(owner, List.of());
    }
    JournalRecord record = JournalRecord.erase(owner, clock.instant(), recipients);
    try {
      return strategy.erase(owner, record, recipients, unsupported);
    } catch (IOException e) {
      log.error(
          "Could not write the erasure of an owner to the outbox journal at {}",
          journal.describe(),
          e);
      throw new TurnOutboxFullException(
          null, "the turn journal cannot be written right now; try again later");
    }
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("the turn outbox is closed");
    }
  }

  /** When an erasure started now stops waiting for the providers ({@link System#nanoTime}). */
  long eraseDeadline() {
    return System.nanoTime() + settings.eraseWait().toNanos();
  }

  /**
   * The erasure's answer, provider by provider: {@code unsupported} for those that cannot forget,
   * {@code queued} for those whose {@code attempt} is {@code null} (not done by the deadline, for
   * the reason {@code busy}), otherwise the attempt's outcome; each with its dropped pending turns.
   */
  OwnerErasure outcomes(
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
   * Refuses new records; with the memory journal gives the queues up to {@code
   * memstack.outbox.shutdown-grace} to drain; lets every delivery thread finish the provider call
   * it is in (never interrupting it) for up to the grace period, saves every cursor and closes the
   * journal. A persistent journal loses nothing: what is pending is delivered after the next start.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
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

  /** What a new lane of {@code providerId} is given. */
  LaneSetup laneSetup(String providerId) {
    return new LaneSetup(
        journal,
        new LaneCalls(providerId, port, journal),
        settings.deliveryBatch(),
        backoff,
        new Triage(providerId, journal, settings.maxAttempts(), clock));
  }

  /** Keeps the owner's turns before {@code before} to be erased from storage by maintenance. */
  void keepUnexpunged(String owner, long before) {
    unexpunged.merge(owner, before, Math::max);
  }

  /** Saves the cursors of lanes whose last save is stale. */
  void saveStaleCursors() {
    for (Lane lane : lanes.values()) {
      lane.saveIfStale();
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
   * past, saves stale cursors. It runs about once a second on its own thread; tests call it to not
   * wait for that.
   */
  public void maintain() {
    unexpunged.forEach(this::expunge);
    strategy.maintain();
  }

  /**
   * Erases the owner's turns before {@code before} from the journal's storage; on failure keeps it
   * for the next maintenance pass.
   */
  void expunge(String owner, long before) {
    try {
      int erased = journal.expunge(owner, before) + deadLetters.erase(owner);
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

  private static List<String> distinct(List<String> providerIds) {
    Objects.requireNonNull(providerIds, "providerIds");
    Set<String> ids = new LinkedHashSet<>();
    for (String id : providerIds) {
      ids.add(Objects.requireNonNull(id, "provider id"));
    }
    return List.copyOf(ids);
  }
}
