package dev.memstack.vector.store;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.support.Require;
import java.nio.file.Path;
import java.time.Clock;

/**
 * What a {@link MemoryVectorStoreFactory} gets to open a store.
 *
 * @param instanceId the provider instance id, for messages and default names
 * @param config the provider instance's whole configuration; a store reads its own keys from it and
 *     reports errors with {@link ProviderConfig#fullKey}
 * @param dataDir the instance's data directory (exists)
 * @param embedder the host's embedder, adapted: batching, checks and normalisation
 * @param reembedOnMismatch when the stored vectors come from another model: {@code true} rebuilds
 *     them at open ({@link MemoryVectorStore#reembed()}), {@code false} fails with a {@link
 *     ModelMismatchException}
 * @param clock the provider's clock
 */
public record StoreContext(
    String instanceId,
    ProviderConfig config,
    Path dataDir,
    StoreEmbedder embedder,
    boolean reembedOnMismatch,
    Clock clock) {

  public StoreContext {
    Require.nonNull(
        "instanceId config dataDir embedder clock", instanceId, config, dataDir, embedder, clock);
  }

  /** The full name of the {@code reembed} key, for {@link ModelMismatchException} messages. */
  public String reembedKey() {
    return config.fullKey("reembed");
  }
}
