package dev.memstack.outbox;

import dev.memstack.outbox.DeliveryPort.Recipient;
import dev.memstack.outbox.journal.Journal;
import dev.memstack.outbox.journal.JournalRecord;
import dev.memstack.outbox.journal.SharedJournal;
import dev.memstack.spi.OwnerKey;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivery over a {@link SharedJournal}, where this host is one writer among several: a provider
 * has one {@link SharedLane} per shard ({@code provider#shard}, records sharded by owner), and a
 * lane delivers only while this host holds its lease, reading its records from the journal; appends
 * are not handed to lanes but wake the lane of their shard (other hosts' appends wake it through
 * the journal's notifications). Admission counts the shared backlog, an erasure waits for the lanes
 * of the owner's shard on whichever host holds them, and the backlog reports every host's pending
 * records and this host's deliveries (redeliveries after a lane changed hands included).
 */
final class SharedDelivery implements DeliveryStrategy {

  private static final Logger log = LoggerFactory.getLogger(OutboxEngine.class);

  private final OutboxEngine engine;
  private final SharedJournal shared;

  /** Turns this host appended for each provider since {@link #admittedState} was counted. */
  private final Map<String, AtomicLong> appendedSince = new ConcurrentHashMap<>();

  private volatile SharedJournal.State admittedState;

  /** Maintenance passes so far (the maintenance thread's alone). */
  private long maintenancePasses;

  SharedDelivery(OutboxEngine engine, SharedJournal shared) {
    this.engine = engine;
    this.shared = shared;
  }

  @Override
  public void open() {
    // a shared journal's lanes read their records when they take their lease: no replay
    discoverLanes();
    for (Recipient member : engine.port.enabled()) {
      lanesOf(member.id()); // so that leases spread before the first turn
    }
    shared.onAppend(this::wakeShard);
  }

  @Override
  public void logOpened() {
    log.info(
        "Turn outbox opened at {} as host {}: {} lane(s) over {} shard(s)",
        shared.describe(),
        shared.hostId(),
        engine.lanes.size(),
        shared.shards());
  }

  /** Appends of several hosts (and threads) meet in the journal, ordered per shard there. */
  @Override
  public void enqueue(JournalRecord record, byte[] body, List<String> recipients)
      throws IOException {
    admit(recipients, body.length);
    Journal.Entry entry = shared.append(record.header(), body);
    for (String id : recipients) {
      appendedSince.computeIfAbsent(id, key -> new AtomicLong()).incrementAndGet();
      lane(id, entry.owner()).wake();
    }
  }

  /**
   * Refuses a record past {@code max-pending} for a required provider over the backlog of every
   * host, as the shared journal last counted it, plus the turns this host appended since (so that a
   * burst on one host cannot overrun the bound by a second's worth; other hosts' turns of the last
   * second may), or past {@code max-journal-size}.
   */
  private void admit(List<String> recipients, int bodyBytes) {
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
      if (!engine.bounds.holdsBack(id)) {
        continue;
      }
      SharedJournal.Pending backlog = state.pending().get(id);
      AtomicLong mine = appendedSince.get(id);
      long waiting = (backlog == null ? 0 : backlog.turns()) + (mine == null ? 0 : mine.get());
      if (waiting >= engine.settings.maxPending()) {
        throw new TurnOutboxFullException(id, engine.settings.maxPending());
      }
    }
    engine.admitBytes(bodyBytes);
  }

  /**
   * The erasure goes to the owner's shard; the owner's undelivered turns are counted and deleted
   * from the journal; a lane this host holds tries the erasure at once, and one another host holds
   * is done when its saved cursor is past the erasure (its outcome then reads {@code erased} with
   * no count of what was removed).
   */
  @Override
  public OwnerErasure erase(
      OwnerKey owner, JournalRecord record, List<String> recipients, Set<String> unsupported)
      throws IOException {
    Map<String, CompletableFuture<Attempt>> attempts = new LinkedHashMap<>();
    Journal.Entry entry = shared.append(record.header(), record.encode());
    Map<String, Integer> dropped = shared.undone(owner.value(), entry.position());
    for (String id : recipients) {
      Lane lane = lane(id, owner.value());
      Urgent urgent = null;
      if (!unsupported.contains(id) && lane.leased()) {
        urgent = new Urgent(owner.value(), entry.position(), new CompletableFuture<>());
        attempts.put(id, urgent.result());
      }
      lane.addErase(entry, urgent);
      lane.wake();
    }
    engine.expunge(owner.value(), entry.position());
    long deadline = engine.eraseDeadline();
    long position = entry.position();
    int shard = SharedJournal.shardOf(owner.value(), shared.shards());
    Set<String> notRunning = Set.copyOf(engine.port.disabled());
    return engine.outcomes(
        owner,
        recipients,
        unsupported,
        dropped,
        id ->
            notRunning.contains(id)
                ? notRunning(id)
                : await(
                    attempts.get(id),
                    SharedJournal.laneId(id, shard),
                    owner.value(),
                    position,
                    deadline),
        "busy, backing off or not running");
  }

  /**
   * The answer for a provider this host knows is not running, given at once as on a single host:
   * another host may run it, but waiting here for that would hold every erasure for {@code
   * erase-wait}; the erasure stays queued in the journal either way.
   */
  private static Attempt notRunning(String id) {
    return new Attempt(
        ProviderErasure.QUEUED,
        0,
        "provider " + id + " is not running on this host; the erasure waits for it",
        false);
  }

  /**
   * Waits for this host's attempt, or for the lane's saved cursor (whoever holds it) to pass the
   * erasure without parking it; {@code null} when neither happened by the deadline.
   */
  private Attempt await(
      CompletableFuture<Attempt> attempt, String lane, String owner, long position, long deadline) {
    while (true) {
      if (attempt != null && attempt.isDone()) {
        return Attempt.await(attempt, deadline);
      }
      try {
        SharedJournal.Taken saved = shared.taken(lane);
        if (saved.cursor().next() > position
            && saved.cursor().parked().stream().noneMatch(p -> p.owner().equals(owner))) {
          return new Attempt(
              ProviderErasure.ERASED,
              0,
              "erased by the host that delivers to provider "
                  + SharedJournal.providerOf(lane)
                  + " for this owner; what it removed is counted there, not here",
              true);
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

  @Override
  public void maintain() {
    if (++maintenancePasses % 5 == 0) {
      discoverLanes(); // providers another host appended for first
    }
    boundBacklogs();
    for (Lane lane : engine.lanes.values()) {
      lane.parkIfHolding(Long.MAX_VALUE);
    }
    int freed = shared.compactDone();
    if (freed > 0) {
      log.debug("Freed {} delivered outbox record(s)", freed);
    }
    engine.saveStaleCursors();
  }

  /**
   * Drops the oldest turns of every optional provider with more than its {@code max-backlog}
   * waiting over all hosts: the cut is counted in the journal, and each host moves the lanes it
   * holds past it.
   */
  private void boundBacklogs() {
    Map<String, SharedJournal.Pending> pending = shared.state().pending();
    Set<String> providers = new TreeSet<>();
    engine.lanes.values().forEach(lane -> providers.add(lane.providerId));
    for (String id : providers) {
      ProviderPolicy policy = engine.bounds.policy(id);
      SharedJournal.Pending waiting = pending.get(id);
      if (!policy.optional() || waiting == null || waiting.turns() <= policy.maxBacklog()) {
        continue;
      }
      try {
        OptionalLong cut = shared.backlogCut(id, policy.maxBacklog());
        if (cut.isEmpty()) {
          continue;
        }
        for (Lane lane : engine.lanes.values()) {
          if (lane.providerId.equals(id) && lane instanceof SharedLane held) {
            engine.bounds.counted(id, held.skipBefore(cut.getAsLong()));
            held.save(false);
          }
        }
      } catch (IOException e) {
        log.warn("Could not bound the outbox backlog of provider {}: {}", id, e.toString());
      }
    }
  }

  /**
   * The pending counts are every host's (as last counted) and the deliveries this host's, summed
   * over the provider's lanes.
   */
  @Override
  public List<OutboxEngine.Backlog> backlog(Instant now) {
    Map<String, List<OutboxEngine.Backlog>> local = new TreeMap<>();
    for (Lane lane : engine.lanes.values()) {
      local.computeIfAbsent(lane.providerId, id -> new ArrayList<>()).add(lane.backlog(now));
    }
    Map<String, SharedJournal.Pending> pending = shared.state().pending();
    Set<String> ids = new TreeSet<>(local.keySet());
    ids.addAll(pending.keySet());
    List<OutboxEngine.Backlog> backlog = new ArrayList<>();
    for (String id : ids) {
      SharedJournal.Pending waiting =
          pending.getOrDefault(id, new SharedJournal.Pending(0, 0, Long.MAX_VALUE));
      long delivered = 0;
      long failed = 0;
      long erased = 0;
      long redelivered = 0;
      String lastError = null;
      for (OutboxEngine.Backlog lane : local.getOrDefault(id, List.of())) {
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
      backlog.add(new OutboxEngine.Backlog(id, stats, turns, erasures, erased, redelivered));
    }
    return backlog;
  }

  @Override
  public Optional<SharedJournal.State> sharedState() {
    return Optional.of(shared.state());
  }

  @Override
  public String journalType() {
    return "postgres";
  }

  @Override
  public boolean forced() {
    return true;
  }

  /**
   * The lane of {@code provider} over the owner's shard; the provider's lanes of every shard are
   * created and started if new.
   */
  private Lane lane(String provider, String owner) {
    String id = SharedJournal.laneId(provider, SharedJournal.shardOf(owner, shared.shards()));
    Lane lane = engine.lanes.get(id);
    if (lane == null) {
      lanesOf(provider);
      lane = engine.lanes.get(id);
    }
    return lane;
  }

  private void lanesOf(String provider) {
    for (int shard = 0; shard < shared.shards(); shard++) {
      engine.lanes.computeIfAbsent(
          SharedJournal.laneId(provider, shard),
          id -> {
            Lane lane = new SharedLane(provider, id, shared, engine.laneSetup(provider));
            if (!engine.closed.get()) {
              lane.start();
            }
            return lane;
          });
    }
  }

  /** Creates the lanes of every provider the shared journal has lanes for. */
  private void discoverLanes() {
    Set<String> providers = new TreeSet<>();
    for (String id : shared.cursors().keySet()) {
      if (id.equals(
          SharedJournal.laneId(SharedJournal.providerOf(id), SharedJournal.shardOfLane(id)))) {
        providers.add(SharedJournal.providerOf(id));
      }
    }
    providers.forEach(this::lanesOf);
  }

  private void wakeShard(int shard) {
    for (Lane lane : engine.lanes.values()) {
      if (SharedJournal.shardOfLane(lane.laneId) == shard) {
        lane.wake();
      }
    }
  }
}
