package dev.memstack.host.console;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the console's statistics ({@code memstack.console.*}).
 *
 * @param statsSampleInterval How often the host samples each watched agent's memory count and the
 *     outbox (memories, pending, dead letters, delivered) for the charts of GET
 *     /api/v1/agents/{agentId}/stats. From 1s to 1h; anything else stops the host at start naming
 *     this key.
 * @param statsRetention How long the samples are kept: in memory, or in the shared database in
 *     shared mode (table memstack_console_samples), where older rows are deleted. At least one
 *     sample interval and at most 7d.
 */
@ConfigurationProperties("memstack.console")
public record ConsoleProperties(
    @DefaultValue("1m") Duration statsSampleInterval, @DefaultValue("1h") Duration statsRetention) {

  /** Key of {@link #statsSampleInterval}. */
  public static final String INTERVAL_KEY = "memstack.console.stats-sample-interval";

  /** Key of {@link #statsRetention}. */
  public static final String RETENTION_KEY = "memstack.console.stats-retention";

  public ConsoleProperties {
    statsSampleInterval = statsSampleInterval == null ? Duration.ofMinutes(1) : statsSampleInterval;
    statsRetention = statsRetention == null ? Duration.ofHours(1) : statsRetention;
    if (statsSampleInterval.compareTo(Duration.ofSeconds(1)) < 0
        || statsSampleInterval.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException(
          INTERVAL_KEY + " must be from 1s to 1h, got " + statsSampleInterval);
    }
    if (statsRetention.compareTo(statsSampleInterval) < 0
        || statsRetention.compareTo(Duration.ofDays(7)) > 0) {
      throw new IllegalArgumentException(
          RETENTION_KEY
              + " must be at least "
              + INTERVAL_KEY
              + " ("
              + statsSampleInterval
              + ") and at most 7d, got "
              + statsRetention);
    }
  }
}
