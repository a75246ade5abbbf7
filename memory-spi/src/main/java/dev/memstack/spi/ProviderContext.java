package dev.memstack.spi;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/**
 * What the host hands a provider instance when it is created: identity, configuration, a place on
 * disk, a clock and the host's model ports. Implementations are immutable and thread-safe.
 */
public interface ProviderContext {

  /** The instance id from the host configuration ({@code memstack.providers.<id>}). */
  String instanceId();

  /** The instance's {@code config.*} settings, read-only. */
  ProviderConfig config();

  /**
   * A directory that belongs to this instance alone ({@code <data-dir>/<instance-id>}); it exists
   * when the provider is created and survives restarts.
   */
  Path dataDir();

  /** The clock to read time from, so tests can move it. */
  Clock clock();

  /** The host's embedding model. Always present. */
  Embedder embedder();

  /**
   * The host's chat model; {@link LanguageModel#available()} is {@code false} when none is
   * configured.
   */
  LanguageModel languageModel();

  /**
   * Tells the host that {@link MemoryProvider#systemPromptBlock(AgentId)} changed for {@code agent}
   * (or for every agent when {@code agent} is {@code null}), so its cached prompt is rebuilt. Cheap
   * and thread-safe; call it after every write that changes the block.
   */
  void systemPromptChanged(AgentId agent);

  /**
   * How this instance agrees with its peers on other hosts (scheduled runs, locks, cooldowns,
   * counters). The default answers for this process only; a host in shared mode answers across
   * hosts.
   *
   * @since 0.3.0
   */
  default Coordination coordination() {
    return LocalCoordinations.of(this);
  }

  /**
   * The database every host shares, when the host runs in shared mode ({@code
   * memstack.shared.jdbc-url} set); empty on a single host.
   *
   * @since 0.3.0
   */
  default Optional<SharedDatabase> sharedDatabase() {
    return Optional.empty();
  }
}
