package dev.memstack.host.plugin;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * The query vectors of the last few query texts, shared by every provider: a context call asks all
 * providers at once, and each that searches by meaning embeds the same query, so the first to ask
 * embeds it and the others wait for that vector instead of embedding it again (single flight). A
 * query is embedded alone (never batched with others), so the vector is the one each provider would
 * have computed itself. A failed embedding is not kept. Least recently used entries go past {@code
 * capacity}. Callers get a copy of the vector. Thread-safe.
 */
final class QueryVectorCache {

  private final int capacity;
  private final Map<String, CompletableFuture<float[]>> entries;

  QueryVectorCache(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.capacity = capacity;
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(
              Map.Entry<String, CompletableFuture<float[]>> eldest) {
            return size() > QueryVectorCache.this.capacity;
          }
        };
  }

  /** The vector of {@code key}: cached, being computed by another caller, or computed now. */
  float[] get(String key, Function<String, float[]> embed) {
    Objects.requireNonNull(key, "key");
    CompletableFuture<float[]> mine = null;
    CompletableFuture<float[]> entry;
    synchronized (entries) {
      entry = entries.get(key);
      if (entry == null) {
        mine = new CompletableFuture<>();
        entries.put(key, mine);
        entry = mine;
      }
    }
    if (mine != null) {
      try {
        mine.complete(Objects.requireNonNull(embed.apply(key), "vector"));
      } catch (RuntimeException | Error e) {
        synchronized (entries) {
          entries.remove(key, mine);
        }
        mine.completeExceptionally(e);
        throw e;
      }
    }
    try {
      return entry.join().clone();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw e;
    }
  }

  /** How many vectors are kept now (for tests). */
  int size() {
    synchronized (entries) {
      return entries.size();
    }
  }
}
