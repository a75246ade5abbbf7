package dev.memstack.host.shared;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Shared mode ({@code memstack.shared.*}): one PostgreSQL database that every host of a deployment
 * uses for the state it would otherwise keep in its data dir. Unset (the default), the host keeps
 * everything local and needs no database.
 *
 * @param jdbcUrl JDBC URL of the database every host shares (jdbc:postgresql://host:port/db). Set,
 *     it puts the turn outbox, the conversation log, the providers' stores and their coordination
 *     (scheduled jobs, locks, cooldowns, cache invalidation) on that database; each of them can
 *     still be pointed elsewhere by its own key. API tokens must then be configured
 *     (memstack.security.tokens): no host generates its own.
 * @param username User for the shared database; unset takes the one in the URL or the driver's
 *     default.
 * @param password Password for the shared database; never logged.
 * @param poolSize Most connections one host keeps open to the shared database.
 * @param connectTimeout How long a host waits for a connection of the pool before the call fails (a
 *     context call then answers from what is reachable; a turn is refused with HTTP 503).
 */
@ConfigurationProperties("memstack.shared")
public record SharedProperties(
    String jdbcUrl,
    String username,
    String password,
    @DefaultValue("10") int poolSize,
    @DefaultValue("3s") Duration connectTimeout) {

  public SharedProperties {
    if (jdbcUrl != null && jdbcUrl.isBlank()) {
      jdbcUrl = null;
    }
    if (jdbcUrl != null && !jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "memstack.shared.jdbc-url must start with jdbc:postgresql:, got "
              + SharedStore.redact(jdbcUrl));
    }
    if (poolSize < 2 || poolSize > 200) {
      throw new IllegalArgumentException(
          "memstack.shared.pool-size must be between 2 and 200, got " + poolSize);
    }
    if (connectTimeout.toMillis() < 250) {
      throw new IllegalArgumentException(
          "memstack.shared.connect-timeout must be at least 250ms, got " + connectTimeout);
    }
  }

  /** Whether shared mode is on. */
  public boolean enabled() {
    return jdbcUrl != null;
  }
}
