package dev.memstack.vector.lucene;

import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.MemoryVectorStoreFactory;
import dev.memstack.vector.store.StoreContext;
import java.util.Set;

/**
 * Opens the embedded store ({@code store=embedded}, the default) in {@code <data-dir>/lucene}. It
 * reads no configuration keys of its own.
 */
public final class LuceneMemoryVectorStoreFactory implements MemoryVectorStoreFactory {

  /** The directory under the instance data directory. */
  public static final String DIRECTORY = "lucene";

  @Override
  public String name() {
    return "embedded";
  }

  @Override
  public Set<String> configKeys() {
    return Set.of();
  }

  @Override
  public MemoryVectorStore open(StoreContext context) {
    return LuceneMemoryVectorStore.open(
        context.dataDir().resolve(DIRECTORY),
        context.embedder(),
        context.reembedOnMismatch(),
        context.reembedKey());
  }
}
