package dev.memstack.support;

import org.postgresql.ds.PGSimpleDataSource;

/**
 * PostgreSQL connections for a plugin's pool: a {@link PGSimpleDataSource} rather than {@code
 * DriverManager}, which cannot see a driver in a plugin's class loader. Needs the PostgreSQL driver
 * on the plugin's class path.
 */
public final class PgConnections {

  /** The application name the driver reports when none is configured. */
  private static final String DRIVER_DEFAULT_NAME = "PostgreSQL JDBC Driver";

  /** Seconds to wait for a connection when the URL names no {@code connectTimeout}. */
  private static final int CONNECT_TIMEOUT_SECONDS = 10;

  private PgConnections() {}

  /**
   * Connections to {@code jdbcUrl}, as {@code username} with {@code password} when given (either
   * may be {@code null}, e.g. when the URL carries them). Unless the URL sets them, the connections
   * show {@code applicationName} in {@code pg_stat_activity} and give up connecting after ten
   * seconds.
   */
  public static PGSimpleDataSource source(
      String jdbcUrl, String username, String password, String applicationName) {
    PGSimpleDataSource source = new PGSimpleDataSource();
    source.setUrl(jdbcUrl);
    if (username != null) {
      source.setUser(username);
    }
    if (password != null) {
      source.setPassword(password);
    }
    if (source.getApplicationName() == null
        || source.getApplicationName().equals(DRIVER_DEFAULT_NAME)) {
      source.setApplicationName(applicationName);
    }
    if (source.getConnectTimeout() == 0) {
      source.setConnectTimeout(CONNECT_TIMEOUT_SECONDS);
    }
    return source;
  }
}
