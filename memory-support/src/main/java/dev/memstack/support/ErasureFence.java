package dev.memstack.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * How many times each key (an owner) was erased in this process, with a fence that orders erasures
 * against the writes of work that read the key's memory before: such work reads {@link #erasures}
 * when it begins and writes inside {@link #holdIfNotErasedSince}, which holds the key's fence
 * shared; {@link #countErasure} takes it alone, so it waits for the writes under way (the erasure
 * after it then removes what they wrote) and every later hold sees the new count. The locks are a
 * fixed set of stripes (no lock kept per key); the counts of erased keys are kept. Thread-safe.
 *
 * @param <K> the key
 */
public final class ErasureFence<K> {

  /** A fence held shared; {@link #close()} lets it go. */
  public interface Held extends AutoCloseable {
    @Override
    void close();
  }

  private final Map<K, Long> erasures = new ConcurrentHashMap<>();
  private final ReentrantReadWriteLock[] stripes;

  /** A fence over {@code stripes} read-write locks. */
  public ErasureFence(int stripes) {
    if (stripes < 1) {
      throw new IllegalArgumentException("stripes must be positive: " + stripes);
    }
    this.stripes = new ReentrantReadWriteLock[stripes];
    for (int i = 0; i < stripes; i++) {
      this.stripes[i] = new ReentrantReadWriteLock();
    }
  }

  /** How many times {@code key} was erased: what work reads before it reads the key's memory. */
  public long erasures(K key) {
    return erasures.getOrDefault(key, 0L);
  }

  /** Counts one more erasure of {@code key}, once the writes under way have let the fence go. */
  public void countErasure(K key) {
    ReentrantReadWriteLock fence = stripe(key);
    fence.writeLock().lock();
    try {
      erasures.merge(key, 1L, Long::sum);
    } finally {
      fence.writeLock().unlock();
    }
  }

  /**
   * Holds {@code key}'s fence shared while its erasure count is still {@code seen}; {@code null}
   * (nothing held) when it was erased since. Use it in a try-with-resources statement (a null
   * resource is not closed) and write only when it is not null.
   */
  public Held holdIfNotErasedSince(K key, long seen) {
    ReentrantReadWriteLock.ReadLock shared = stripe(key).readLock();
    shared.lock();
    if (erasures(key) != seen) {
      shared.unlock();
      return null;
    }
    return shared::unlock;
  }

  private ReentrantReadWriteLock stripe(K key) {
    return stripes[Math.floorMod(key.hashCode(), stripes.length)];
  }
}
