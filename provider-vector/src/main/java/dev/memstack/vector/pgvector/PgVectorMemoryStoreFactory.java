package dev.memstack.vector.pgvector;

import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.MemoryVectorStoreFactory;
import dev.memstack.vector.store.StoreContext;
import java.util.Set;

/**
 * Opens the {@link PgVectorMemoryStore} for {@code store=pgvector}; its keys are those of {@link
 * PgVectorSettings}. Stateless.
 */
public final class PgVectorMemoryStoreFactory implements MemoryVectorStoreFactory {

  /** The {@code store} value that selects this factory. */
  public static final String NAME = "pgvector";

  public PgVectorMemoryStoreFactory() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<String> configKeys() {
    return PgVectorSettings.KEYS;
  }

  @Override
  public MemoryVectorStore open(StoreContext context) {
    PgVectorSettings settings = PgVectorSettings.from(context.config());
    return PgVectorMemoryStore.open(
        settings, context.embedder(), context.reembedOnMismatch(), context.reembedKey());
  }
}
