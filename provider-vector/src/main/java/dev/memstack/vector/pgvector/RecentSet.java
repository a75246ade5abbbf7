package dev.memstack.vector.pgvector;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A small set that forgets: at most {@code capacity} elements (least recently added first out),
 * each for {@code ttlNanos}. Thread-safe.
 */
final class RecentSet<T> {

  private final long ttlNanos;
  private final Map<T, Long> expiries;

  RecentSet(int capacity, long ttlNanos) {
    this.ttlNanos = ttlNanos;
    this.expiries =
        new LinkedHashMap<>(16, 0.75f, false) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<T, Long> eldest) {
            return size() > capacity;
          }
        };
  }

  synchronized void add(T element) {
    expiries.remove(element);
    expiries.put(element, System.nanoTime() + ttlNanos);
  }

  synchronized boolean contains(T element) {
    Long expiry = expiries.get(element);
    if (expiry == null) {
      return false;
    }
    if (expiry - System.nanoTime() < 0) {
      expiries.remove(element);
      return false;
    }
    return true;
  }
}
