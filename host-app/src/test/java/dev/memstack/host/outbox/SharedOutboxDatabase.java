package dev.memstack.host.outbox;

import static org.junit.jupiter.api.Assertions.fail;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.shared.SharedStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL schema of its own for a shared-outbox test, on the database of {@code
 * MEMSTACK_PG_URL} ({@code MEMSTACK_PG_USER}, {@code MEMSTACK_PG_PASSWORD}): without it the test is
 * skipped, on CI ({@code CI=true}) it fails. Each {@link #store()} is one host's pool on that
 * schema; closing a pool is how a test kills a host.
 */
final class SharedOutboxDatabase implements AutoCloseable {

  private final String url;
  private final String user;
  private final String password;
  private final String schema;

  private SharedOutboxDatabase(String url, String user, String password) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.schema = "outbox_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    execute("CREATE SCHEMA " + schema);
  }

  /** A new schema on the configured database; skips the test without one, fails it on CI. */
  static SharedOutboxDatabase create() {
    String url = blankToNull(System.getenv("MEMSTACK_PG_URL"));
    if (url == null) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("MEMSTACK_PG_URL is not set on CI (CI=true): the shared outbox tests need PostgreSQL");
      }
      Assumptions.abort("MEMSTACK_PG_URL is not set; skipping the shared outbox test");
    }
    return new SharedOutboxDatabase(
        url,
        blankToNull(System.getenv("MEMSTACK_PG_USER")),
        blankToNull(System.getenv("MEMSTACK_PG_PASSWORD")));
  }

  /** One host's pool on this schema. */
  SharedStore store() {
    return new SharedStore(new SharedProperties(url(), user, password, 6, Duration.ofSeconds(1)));
  }

  /** The JDBC URL of this schema. */
  String url() {
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  String user() {
    return user == null ? "" : user;
  }

  String password() {
    return password == null ? "" : password;
  }

  /** Runs one statement in this schema. */
  void execute(String sql) {
    try (Connection connection = DriverManager.getConnection(url, user, password);
        Statement statement = connection.createStatement()) {
      if (!sql.toUpperCase(Locale.ROOT).startsWith("CREATE SCHEMA")
          && !sql.toUpperCase(Locale.ROOT).startsWith("DROP SCHEMA")) {
        statement.execute("SET search_path TO " + schema);
      }
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** The single number a query in this schema answers. */
  long count(String sql) {
    try (Connection connection = DriverManager.getConnection(url, user, password);
        Statement statement = connection.createStatement()) {
      statement.execute("SET search_path TO " + schema);
      try (var rows = statement.executeQuery(sql)) {
        rows.next();
        return rows.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** Every record body in the outbox table, concatenated. */
  byte[] bodies() {
    try (Connection connection = DriverManager.getConnection(url, user, password);
        Statement statement = connection.createStatement()) {
      statement.execute("SET search_path TO " + schema);
      java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
      try (var rows =
          statement.executeQuery("SELECT body FROM memstack_outbox_record ORDER BY position")) {
        while (rows.next()) {
          all.writeBytes(rows.getBytes(1));
        }
      }
      return all.toByteArray();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
