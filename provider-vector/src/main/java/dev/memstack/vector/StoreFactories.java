package dev.memstack.vector;

import dev.memstack.vector.contradictions.ContradictionQueue;
import dev.memstack.vector.contradictions.FileContradictionQueue;
import dev.memstack.vector.lucene.LuceneMemoryVectorStore;
import dev.memstack.vector.lucene.LuceneMemoryVectorStoreFactory;
import dev.memstack.vector.pgvector.PgContradictionQueue;
import dev.memstack.vector.pgvector.PgCustomTypeStore;
import dev.memstack.vector.pgvector.PgVectorMemoryStore;
import dev.memstack.vector.pgvector.PgVectorMemoryStoreFactory;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.MemoryVectorStoreFactory;
import dev.memstack.vector.types.CustomTypeStore;
import dev.memstack.vector.types.FileCustomTypeStore;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The stores this plugin carries, by the value of the {@code store} key, and what each keeps beside
 * its records (the agents' custom memory types).
 */
final class StoreFactories {

  private StoreFactories() {}

  /** Every store factory by name, {@code embedded} (the default) first. */
  static Map<String, MemoryVectorStoreFactory> all() {
    Map<String, MemoryVectorStoreFactory> factories = new LinkedHashMap<>();
    for (MemoryVectorStoreFactory factory :
        new MemoryVectorStoreFactory[] {
          new LuceneMemoryVectorStoreFactory(), new PgVectorMemoryStoreFactory()
        }) {
      factories.put(factory.name(), factory);
    }
    return factories;
  }

  /**
   * The custom memory types kept beside an opened store: a file in the embedded store's folder, a
   * table beside the pgvector store's table (shared by every host of that table).
   *
   * @throws IllegalStateException for a store this plugin did not open
   */
  static CustomTypeStore customTypes(MemoryVectorStore store) {
    return beside(store, "custom type", FileCustomTypeStore::open, PgCustomTypeStore::new);
  }

  /**
   * The open contradictions kept beside an opened store: a file in the embedded store's folder, a
   * table beside the pgvector store's table (shared by every host of that table).
   *
   * @throws IllegalStateException for a store this plugin did not open
   */
  static ContradictionQueue contradictions(MemoryVectorStore store) {
    return beside(store, "contradiction", FileContradictionQueue::open, PgContradictionQueue::new);
  }

  private static <T> T beside(
      MemoryVectorStore store,
      String what,
      Function<Path, T> embedded,
      Function<PgVectorMemoryStore, T> pgvector) {
    if (store instanceof LuceneMemoryVectorStore lucene) {
      return embedded.apply(lucene.root());
    }
    if (store instanceof PgVectorMemoryStore pg) {
      return pgvector.apply(pg);
    }
    throw new IllegalStateException("no " + what + " storage for store " + store.getName());
  }
}
