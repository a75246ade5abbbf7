package dev.memstack.vector.facts;

import dev.memstack.spi.ProviderConfig;
import java.time.Duration;
import java.util.Set;

/**
 * The fact extraction's configuration keys, parsed and checked.
 *
 * @param enabled {@code facts-enabled} (true): extract facts when a chat model is configured
 * @param modelTimeout {@code facts-model-timeout} (30s): longest wait for one model answer
 * @param maxFacts {@code facts-max-per-turn} (10): most candidates taken from one turn
 */
public record FactSettings(boolean enabled, Duration modelTimeout, int maxFacts) {

  /** The keys read here. */
  public static final Set<String> KEYS =
      Set.of("facts-enabled", "facts-model-timeout", "facts-max-per-turn");

  /** Similarity at which a candidate is taken as already known without asking the model. */
  public static final double SAME_FACT = 0.95;

  /** How many existing records a candidate is compared with. */
  public static final int NEIGHBOURS = 5;

  /** The defaults. */
  public static FactSettings defaults() {
    return new FactSettings(true, Duration.ofSeconds(30), 10);
  }

  /** Parses and checks the fact keys of {@code config}. */
  public static FactSettings from(ProviderConfig config) {
    Duration timeout = config.positiveDuration("facts-model-timeout", Duration.ofSeconds(30));
    return new FactSettings(
        config.bool("facts-enabled", true),
        timeout,
        config.integer("facts-max-per-turn", 10, 1, 50));
  }
}
