package dev.memstack.vector.lifecycle;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeParseException;
import java.util.Set;

/**
 * The lifecycle's configuration keys, parsed and checked; a bad value fails with a {@link
 * ProviderConfigException} naming the key.
 *
 * @param enabled {@code lifecycle-enabled} (true): nightly decay and weight in ranking
 * @param decayAt {@code decay-at} (02:00, UTC): when the first decay run of a day starts
 * @param decayInterval {@code decay-interval} (1d): time between decay runs
 * @param mergeThreshold {@code merge-threshold} (0.9): least cosine similarity of two records of
 *     one owner that are reported as merge candidates
 */
public record LifecycleSettings(
    boolean enabled, LocalTime decayAt, Duration decayInterval, double mergeThreshold) {

  /** The keys read here. */
  public static final Set<String> KEYS =
      Set.of("lifecycle-enabled", "decay-at", "decay-interval", "merge-threshold");

  /** The defaults. */
  public static LifecycleSettings defaults() {
    return new LifecycleSettings(true, LocalTime.of(2, 0), Duration.ofDays(1), 0.9);
  }

  /** Parses and checks the lifecycle keys of {@code config}. */
  public static LifecycleSettings from(ProviderConfig config) {
    LocalTime at;
    String text = config.string("decay-at", "02:00");
    try {
      at = LocalTime.parse(text);
    } catch (DateTimeParseException e) {
      throw new ProviderConfigException(
          config.fullKey("decay-at"), "must be a time of day in UTC such as 02:00, got " + text);
    }
    Duration interval = config.duration("decay-interval", Duration.ofDays(1));
    if (interval.compareTo(Duration.ofMinutes(1)) < 0) {
      throw new ProviderConfigException(
          config.fullKey("decay-interval"), "must be at least 1m, got " + interval);
    }
    double threshold = config.decimal("merge-threshold", 0.9, 0.5, 1);
    return new LifecycleSettings(config.bool("lifecycle-enabled", true), at, interval, threshold);
  }
}
