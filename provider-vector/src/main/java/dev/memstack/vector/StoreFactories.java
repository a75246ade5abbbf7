package dev.memstack.vector;

import dev.memstack.vector.lucene.LuceneMemoryVectorStoreFactory;
import dev.memstack.vector.pgvector.PgVectorMemoryStoreFactory;
import dev.memstack.vector.store.MemoryVectorStoreFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/** The stores this plugin carries, by the value of the {@code store} key. */
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
}
