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
import java.util.LinkedHashMap;
import java.util.Map;

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
    if (store instanceof LuceneMemoryVectorStore embedded) {
      return FileCustomTypeStore.open(embedded.root());
    }
    if (store instanceof PgVectorMemoryStore pgvector) {
      return PgCustomTypeStore.of(pgvector);
    }
    throw new IllegalStateException("no custom type storage for store " + store.getName());
  }

  /**
   * The open contradictions kept beside an opened store: a file in the embedded store's folder, a
   * table beside the pgvector store's table (shared by every host of that table).
   *
   * @throws IllegalStateException for a store this plugin did not open
   */
  static ContradictionQueue contradictions(MemoryVectorStore store) {
    if (store instanceof LuceneMemoryVectorStore embedded) {
      return FileContradictionQueue.open(embedded.root());
    }
    if (store instanceof PgVectorMemoryStore pgvector) {
      return PgContradictionQueue.of(pgvector);
    }
    throw new IllegalStateException("no contradiction storage for store " + store.getName());
  }
}
