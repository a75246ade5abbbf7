package dev.memstack.vector;

import dev.memstack.spi.ProviderConfig;
import java.time.Duration;
import java.util.Set;

/**
 * The keys of trust ({@link VectorTrust}), parsed and checked; a bad value fails with a {@link
 * dev.memstack.spi.ProviderConfigException} naming the key.
 *
 * @param halfLife {@code trust-half-life-days} (60): the time in which an owner's trust in a
 *     record, raised by use and lowered by wrongs, fades half-way back to 0
 * @param suppressCount {@code wrong-suppress-count} (3): how many times an owner marks a record
 *     wrong before it is suppressed for them; 0 never suppresses
 */
public record TrustSettings(Duration halfLife, int suppressCount) {

  /** The keys read here. */
  public static final Set<String> KEYS = Set.of("trust-half-life-days", "wrong-suppress-count");

  /** The defaults. */
  public static TrustSettings defaults() {
    return new TrustSettings(Duration.ofDays(60), 3);
  }

  /** Parses and checks the trust keys of {@code config}. */
  public static TrustSettings from(ProviderConfig config) {
    return new TrustSettings(
        Duration.ofDays(config.integer("trust-half-life-days", 60, 1, 36_500)),
        config.integer("wrong-suppress-count", 3, 0, 1_000_000));
  }
}
