package dev.memstack.vector.lifecycle;

import dev.memstack.vector.store.MemoryVectorStore;
import java.time.Clock;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.document.Document;

/**
 * Recall reinforces what it returns: {@link #recalled} only counts ids in memory (no I/O, safe on
 * the request path); a flush on the given executor adds the counts to {@link
 * Lifecycle#REINFORCEMENTS}, sets {@link Lifecycle#LAST_RECALLED} and raises the weight of
 * lifecycle records by {@value Lifecycle#REINFORCEMENT_STEP} per recall (at most 1). Many recalls
 * of one record between flushes cost one store write. Thread-safe.
 */
public final class RecallReinforcer {

  private static final Logger LOG = LoggerFactory.getLogger(RecallReinforcer.class);

  private final MemoryVectorStore store;
  private final Clock clock;
  private final Executor executor;
  private final Map<String, Integer> pending = new ConcurrentHashMap<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();

  /**
   * @param executor where flushes run; a single-thread executor keeps them apart from other writes
   */
  public RecallReinforcer(MemoryVectorStore store, Clock clock, Executor executor) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  /** Notes that prefetch returned these records; returns at once. */
  public void recalled(Collection<String> ids) {
    if (ids.isEmpty()) {
      return;
    }
    for (String id : ids) {
      pending.merge(id, 1, Integer::sum);
    }
    if (scheduled.compareAndSet(false, true)) {
      try {
        executor.execute(this::flushScheduled);
      } catch (RejectedExecutionException e) {
        scheduled.set(false); // shutting down: the counts stay pending
      }
    }
  }

  private void flushScheduled() {
    scheduled.set(false);
    flush();
  }

  /** Writes the pending counts now, on the calling thread; returns how many records changed. */
  public int flush() {
    int written = 0;
    for (String id : pending.keySet().toArray(String[]::new)) {
      Integer count = pending.remove(id);
      if (count == null) {
        continue;
      }
      try {
        if (apply(id, count)) {
          written++;
        }
      } catch (RuntimeException e) {
        LOG.warn("could not record the recall of memory {}: {}", id, e.toString());
      }
    }
    return written;
  }

  /** How many ids wait for a flush. */
  public int pending() {
    return pending.size();
  }

  private boolean apply(String id, int count) {
    Document doc = store.get(id).orElse(null);
    if (doc == null) {
      return false; // deleted meanwhile
    }
    Map<String, Object> metadata = doc.getMetadata();
    Map<String, Object> change = new LinkedHashMap<>();
    change.put(Lifecycle.REINFORCEMENTS, Lifecycle.reinforcements(metadata) + count);
    change.put(Lifecycle.LAST_RECALLED, clock.millis());
    if (Lifecycle.tracked(metadata)) {
      double weight =
          Math.min(1.0, Lifecycle.weight(metadata) + Lifecycle.REINFORCEMENT_STEP * count);
      change.put(Lifecycle.WEIGHT, Math.round(weight * 1e6) / 1e6);
    }
    return store.updateMetadata(id, change);
  }
}
