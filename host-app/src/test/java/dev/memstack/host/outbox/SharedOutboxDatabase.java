package dev.memstack.host.outbox;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.shared.SharedStore;
import dev.memstack.testing.TestPostgres;
import java.io.ByteArrayOutputStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * A PostgreSQL schema of its own for a shared-outbox test on the database of {@link
 * TestPostgres#fromEnvironment()} (skipped without one, failed on CI). Each {@link #store()} is one
 * host's pool on that schema; closing a pool is how a test kills a host.
 */
final class SharedOutboxDatabase implements AutoCloseable {

  private final TestPostgres postgres;
  private final String schema;

  private SharedOutboxDatabase(TestPostgres postgres) {
    this.postgres = postgres;
    this.schema = postgres.createSchema("outbox_");
  }

  /** A new schema on the configured database; skips the test without one, fails it on CI. */
  static SharedOutboxDatabase create() {
    return new SharedOutboxDatabase(TestPostgres.fromEnvironment());
  }

  /** One host's pool on this schema. */
  SharedStore store() {
    return new SharedStore(
        new SharedProperties(url(), user(), password(), 6, Duration.ofSeconds(1)));
  }

  /** The JDBC URL of this schema. */
  String url() {
    return postgres.urlWithSchema(schema);
  }

  String user() {
    return postgres.user() == null ? "" : postgres.user();
  }

  String password() {
    return postgres.password() == null ? "" : postgres.password();
  }

  /** Runs one statement in this schema. */
  void execute(String sql) {
    try (Connection connection = postgres.connect(url());
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** The single number a query in this schema answers. */
  long count(String sql) {
    try (Connection connection = postgres.connect(url());
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** Every record body in the outbox table, concatenated. */
  byte[] bodies() {
    try (Connection connection = postgres.connect(url());
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery("SELECT body FROM memstack_outbox_record ORDER BY position")) {
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      while (rows.next()) {
        all.writeBytes(rows.getBytes(1));
      }
      return all.toByteArray();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    postgres.dropSchema(schema);
  }
}
