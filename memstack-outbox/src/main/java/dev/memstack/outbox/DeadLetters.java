package dev.memstack.outbox;

import dev.memstack.outbox.journal.DeadLetter;
import dev.memstack.outbox.journal.DeadLetterStore;
import dev.memstack.outbox.journal.JournalRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox's dead letters, for the admin routes and the metrics: turns a provider would not take,
 * parked out of its lane (see {@link Triage}). A retry hands the turn to that provider again as a
 * new record at the end of its lane; a delete forgets it. They are erased with their owner.
 */
public final class DeadLetters {

  private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);

  /** How long {@link #counts()} answers from its last count. */
  private static final long COUNT_TTL_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final OutboxEngine engine;
  private final DeadLetterStore store;

  // guarded by this
  private Map<String, Integer> counts = Map.of();
  private long countedAtNanos = System.nanoTime() - COUNT_TTL_NANOS;

  DeadLetters(OutboxEngine engine, DeadLetterStore store) {
    this.engine = engine;
    this.store = store;
  }

  /**
   * Every dead letter, oldest parked first; only those of {@code provider} when it is not {@code
   * null}.
   *
   * @throws UncheckedIOException when the store cannot be read now
   */
  public List<DeadLetter> list(String provider) {
    List<DeadLetter> all = read();
    return provider == null
        ? all
        : all.stream().filter(d -> d.provider().equals(provider)).toList();
  }

  /** The dead letter with this id, if there is one. */
  public Optional<DeadLetter> find(String id) {
    if (!DeadLetter.isId(id)) {
      return Optional.empty();
    }
    return read().stream().filter(d -> d.id().equals(id)).findFirst();
  }

  /**
   * Hands dead letter {@code id} to its provider again, as a new record at the end of its lane (the
   * provider's own rules decide again), and deletes it; empty when there is no such dead letter.
   *
   * @throws TurnOutboxFullException when the outbox cannot take it now (it stays a dead letter)
   */
  public Optional<DeadLetter> retry(String id) {
    Optional<DeadLetter> letter = find(id);
    if (letter.isEmpty()) {
      return Optional.empty();
    }
    try {
      Optional<byte[]> record = store.record(id);
      if (record.isEmpty()) {
        return Optional.empty();
      }
      JournalRecord decoded = JournalRecord.decode(ByteBuffer.wrap(record.get()));
      engine.enqueue(decoded.turn(), List.of(letter.get().provider()));
      store.remove(id);
      forgetCounts();
      log.info("Dead letter {} handed to provider {} again", id, letter.get().provider());
      return letter;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read dead letter " + id + ": " + e, e);
    }
  }

  /** Deletes dead letter {@code id}; whether there was one. */
  public boolean delete(String id) {
    try {
      boolean removed = store.remove(id);
      forgetCounts();
      return removed;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete dead letter " + id + ": " + e, e);
    }
  }

  /** How many dead letters each provider has, by id; counted at most every two seconds. */
  public synchronized Map<String, Integer> counts() {
    if (System.nanoTime() - countedAtNanos >= COUNT_TTL_NANOS) {
      try {
        Map<String, Integer> byProvider = new TreeMap<>();
        for (DeadLetter letter : store.list()) {
          byProvider.merge(letter.provider(), 1, Integer::sum);
        }
        counts = Map.copyOf(byProvider);
      } catch (IOException | RuntimeException e) {
        log.debug("Could not count the dead letters: {}", e.toString());
      }
      countedAtNanos = System.nanoTime();
    }
    return counts;
  }

  /** Deletes every dead letter of {@code owner} (an owner erasure). */
  int erase(String owner) throws IOException {
    int removed = store.removeOwner(owner);
    if (removed > 0) {
      forgetCounts();
    }
    return removed;
  }

  synchronized void forgetCounts() {
    countedAtNanos = System.nanoTime() - COUNT_TTL_NANOS;
  }

  private List<DeadLetter> read() {
    try {
      return store.list();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the dead letters: " + e, e);
    }
  }
}
