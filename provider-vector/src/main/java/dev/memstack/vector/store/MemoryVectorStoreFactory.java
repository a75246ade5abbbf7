package dev.memstack.vector.store;

import java.util.Set;

/**
 * Opens one kind of {@link MemoryVectorStore}, selected by the provider's {@code store} key.
 * Implementations have a public no-arg constructor and are stateless.
 */
public interface MemoryVectorStoreFactory {

  /** The value of the {@code store} key that selects this factory, e.g. {@code embedded}. */
  String name();

  /** The configuration keys this store reads (beyond the provider's own keys). */
  Set<String> configKeys();

  /**
   * Validates this store's keys and opens the store: creates its schema or directory if needed and
   * checks the embedding model against the stored vectors.
   *
   * @throws dev.memstack.spi.ProviderConfigException naming the key, for a bad value
   * @throws ModelMismatchException when the stored vectors come from another model and {@link
   *     StoreContext#reembedOnMismatch()} is {@code false}
   * @throws IllegalStateException when the backend cannot be reached or set up, saying why
   */
  MemoryVectorStore open(StoreContext context);
}
