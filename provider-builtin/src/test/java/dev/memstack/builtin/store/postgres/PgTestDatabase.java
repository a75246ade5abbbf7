package dev.memstack.builtin.store.postgres;

import static org.junit.jupiter.api.Assertions.fail;

import dev.memstack.builtin.store.PgSettings;
import dev.memstack.spi.SharedDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL database of the tests, from {@code MEMSTACK_PG_URL}, {@code MEMSTACK_PG_USER} and
 * {@code MEMSTACK_PG_PASSWORD}. Without it the calling tests are skipped, except on CI ({@code
 * CI=true}), where they fail: CI always provides the database.
 */
public record PgTestDatabase(String url, String user, String password) {

  static final String URL_VARIABLE = "MEMSTACK_PG_URL";

  /** The database of the environment, or a skip (a failure on CI). */
  public static PgTestDatabase fromEnvironment() {
    String url = blankToNull(System.getenv(URL_VARIABLE));
    if (url == null) {
      String how =
          "the builtin provider's PostgreSQL tests need a database: export "
              + URL_VARIABLE
              + "=jdbc:postgresql://127.0.0.1:5432/<db> (and MEMSTACK_PG_USER,"
              + " MEMSTACK_PG_PASSWORD)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail(URL_VARIABLE + " is not set on CI (CI=true); " + how);
      }
      Assumptions.abort(URL_VARIABLE + " is not set; skipping: " + how);
    }
    return new PgTestDatabase(
        url,
        blankToNull(System.getenv("MEMSTACK_PG_USER")),
        blankToNull(System.getenv("MEMSTACK_PG_PASSWORD")));
  }

  /** A schema name no other test uses. */
  public static String newSchema() {
    return "t_builtin_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  /** Settings in {@code schema} with the table prefix {@code builtin_}, no prompt watcher. */
  public PgSettings settings(String schema) {
    return new PgSettings(url, user, password, schema, "builtin_", 4, Duration.ZERO);
  }

  /** The database as the host's shared database. */
  public SharedDatabase shared() {
    return new SharedDatabase(url, user, password);
  }

  /** The provider config keys of {@code store=postgres} in {@code schema}. */
  public Map<String, String> config(String schema) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("store", "postgres");
    config.put("jdbc-url", url);
    if (user != null) {
      config.put("username", user);
    }
    if (password != null) {
      config.put("password", password);
    }
    config.put("schema", schema);
    return config;
  }

  public Connection connect() throws SQLException {
    PGSimpleDataSource source = new PGSimpleDataSource();
    source.setUrl(url);
    if (user != null) {
      source.setUser(user);
    }
    if (password != null) {
      source.setPassword(password);
    }
    return source.getConnection();
  }

  public void execute(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** The first column of the first row of {@code sql}, as a long. */
  public long count(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  public void dropSchema(String schema) {
    execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
