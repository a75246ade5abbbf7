package dev.memstack.builtin.store;

import dev.memstack.support.Require;
import java.time.Duration;

/**
 * The database of {@code store=postgres} (see {@code StoreSettings} for the keys).
 *
 * @param jdbcUrl a {@code jdbc:postgresql:} URL
 * @param username the user, or {@code null}
 * @param password the password, or {@code null}; never printed
 * @param schema the schema of the tables (created if missing)
 * @param tablePrefix what every table name starts with, e.g. {@code builtin_}
 * @param poolSize most connections
 * @param promptPollInterval how often other hosts' prompt changes are looked for; zero = never
 */
public record PgSettings(
    String jdbcUrl,
    String username,
    String password,
    String schema,
    String tablePrefix,
    int poolSize,
    Duration promptPollInterval) {

  public PgSettings {
    Require.nonNull(
        "jdbcUrl schema tablePrefix promptPollInterval",
        jdbcUrl,
        schema,
        tablePrefix,
        promptPollInterval);
  }

  /** The URL without its query (where a password may sit), for messages. */
  public String safeUrl() {
    int query = jdbcUrl.indexOf('?');
    return query < 0 ? jdbcUrl : jdbcUrl.substring(0, query) + "?…";
  }

  @Override
  public String toString() {
    return "PgSettings["
        + safeUrl()
        + ", user="
        + username
        + ", "
        + schema
        + "."
        + tablePrefix
        + "]";
  }
}
