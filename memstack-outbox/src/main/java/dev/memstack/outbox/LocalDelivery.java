package dev.memstack.outbox;

import dev.memstack.outbox.journal.Journal;
import dev.memstack.outbox.journal.JournalRecord;
import dev.memstack.outbox.journal.SharedJournal;
import dev.memstack.spi.OwnerKey;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivery over a journal only this host writes ({@code journal} or {@code memory}): one {@link
 * LocalLane} per provider id, rebuilt at start from the saved cursors and a replay of the journal;
 * appends and erasures are ordered under one lock and handed to the lanes there, and the journal's
 * storage is freed once every lane is past it.
 */
final class LocalDelivery implements DeliveryStrategy {

  private static final Logger log = LoggerFactory.getLogger(OutboxEngine.class);

  private final OutboxEngine engine;
  private final Journal journal;
  private final Object appendLock = new Object();

  /**
   * Every record before this position has been handed to its lanes (written under the append lock),
   * so a lane with an empty queue is done with all of them; the journal's own next position may
   * already count a record that is still on its way to a lane.
   */
  private volatile long handedOut;

  /** The durable position up to which the lanes were last woken. */
  private final AtomicLong wokenAt = new AtomicLong();

  LocalDelivery(OutboxEngine engine) {
    this.engine = engine;
    this.journal = engine.journal;
  }

  @Override
  public void open() throws IOException {
    for (Map.Entry<String, Journal.Cursor> saved : journal.cursors().entrySet()) {
      Lane lane = newLane(saved.getKey(), saved.getValue().next());
      lane.restore(saved.getValue());
      engine.lanes.put(lane.laneId, lane);
    }
    journal.replay(this::replay);
    long next = journal.nextPosition();
    handedOut = next;
    for (Lane lane : engine.lanes.values()) {
      lane.openedAt(next);
      lane.start();
    }
  }

  @Override
  public void logOpened() {
    if (journal.persistent()) {
      int pending = engine.lanes.values().stream().mapToInt(Lane::pendingTurns).sum();
      log.info(
          "Turn outbox opened at {}: {} segment(s), {} turn deliveries pending over {}"
              + " provider(s)",
          journal.describe(),
          journal.segments(),
          pending,
          engine.lanes.size());
    }
  }

  @Override
  public void enqueue(JournalRecord record, byte[] body, List<String> recipients)
      throws IOException {
    Journal.Entry entry;
    synchronized (appendLock) {
      admit(recipients, body.length);
      entry = journal.append(record.header(), body);
      for (String id : recipients) {
        Lane lane = lane(id, entry.position());
        lane.addTurn(entry);
        engine.bounds.trim(lane);
      }
      handedOut = entry.position() + 1;
    }
    awaitDurable(entry.position());
  }

  /**
   * Refuses a record that would pass {@code max-pending} for a required provider or {@code
   * max-journal-size}.
   */
  private void admit(List<String> recipients, int bodyBytes) {
    for (String id : recipients) {
      Lane lane = engine.lanes.get(id);
      if (lane != null
          && lane.pendingTurns() >= engine.settings.maxPending()
          && engine.bounds.holdsBack(id)) {
        throw new TurnOutboxFullException(id, engine.settings.maxPending());
      }
    }
    engine.admitBytes(bodyBytes);
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
        for (Lane lane : engine.lanes.values()) {
          lane.wake();
        }
        return;
      }
      seen = wokenAt.get();
    }
  }

  @Override
  public OwnerErasure erase(
      OwnerKey owner, JournalRecord record, List<String> recipients, Set<String> unsupported)
      throws IOException {
    byte[] body = record.encode();
    Map<String, Integer> dropped = new LinkedHashMap<>();
    Map<String, CompletableFuture<Attempt>> attempts = new LinkedHashMap<>();
    Journal.Entry entry;
    synchronized (appendLock) {
      // an erasure is always admitted: it only ever shrinks what waits
      entry = journal.append(record.header(), body);
      for (String id : recipients) {
        Urgent urgent = null;
        if (!unsupported.contains(id)) {
          urgent = new Urgent(owner.value(), entry.position(), new CompletableFuture<>());
          attempts.put(id, urgent.result());
        }
        dropped.put(id, lane(id, entry.position()).addErase(entry, urgent));
      }
      handedOut = entry.position() + 1;
    }
    awaitDurable(entry.position());
    engine.expunge(owner.value(), entry.position());
    long deadline = engine.eraseDeadline();
    return engine.outcomes(
        owner,
        recipients,
        unsupported,
        dropped,
        id -> Attempt.await(attempts.get(id), deadline),
        "busy or backing off");
  }

  @Override
  public void maintain() {
    long sealedBefore = journal.sealedBefore();
    for (Lane lane : engine.lanes.values()) {
      engine.bounds.trim(lane); // after a restart, or a lowered max-backlog
      lane.parkIfHolding(sealedBefore);
    }
    // Read before the cursors: a lane created after this only has records from here on.
    long next = handedOut;
    long lowest = next;
    for (Lane lane : engine.lanes.values()) {
      lowest = Math.min(lowest, lane.cursor(next));
    }
    int freed = journal.compact(lowest);
    if (freed > 0) {
      log.debug("Freed {} delivered outbox segment(s)", freed);
    }
    engine.saveStaleCursors();
  }

  @Override
  public List<OutboxEngine.Backlog> backlog(Instant now) {
    return engine.lanes.keySet().stream()
        .sorted()
        .map(id -> engine.lanes.get(id).backlog(now))
        .toList();
  }

  @Override
  public Optional<SharedJournal.State> sharedState() {
    return Optional.empty();
  }

  @Override
  public String journalType() {
    return journal.persistent() ? "journal" : "memory";
  }

  @Override
  public boolean forced() {
    return journal.persistent() && engine.settings.fsync();
  }

  /** Rebuilds the queues from one kept record (at start). */
  private void replay(Journal.Entry entry) {
    for (String id : entry.header().recipients()) {
      Lane lane = engine.lanes.computeIfAbsent(id, key -> newLane(key, 0));
      if (entry.position() < lane.start) {
        continue;
      }
      if (entry.erase()) {
        engine.keepUnexpunged(entry.owner(), entry.position());
        lane.addErase(entry, null);
      } else {
        lane.addTurn(entry);
      }
    }
  }

  private Lane newLane(String id, long start) {
    return new LocalLane(id, start, () -> handedOut, engine.laneSetup(id));
  }

  /** The lane of {@code id}, created and started for a record at {@code position} if new. */
  private Lane lane(String id, long position) {
    return engine.lanes.computeIfAbsent(
        id,
        key -> {
          Lane lane = newLane(key, position);
          lane.openedAt(position);
          lane.start();
          return lane;
        });
  }
}
