package dev.memstack.host.testing;

import static org.junit.jupiter.api.Assertions.fail;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.shared.SharedStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * A schema of its own on the database of {@code MEMSTACK_PG_URL} ({@code MEMSTACK_PG_USER}, {@code
 * MEMSTACK_PG_PASSWORD}) for shared-mode tests: every "host" of a test opens its own {@link
 * SharedStore} on it. Skips the test without the variable, fails it on CI.
 */
public record SharedTestDatabase(String url, String user, String password, String schema) {

  public static SharedTestDatabase create() {
    String url = blank(System.getenv("MEMSTACK_PG_URL"));
    if (url == null) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("MEMSTACK_PG_URL is not set on CI (CI=true)");
      }
      Assumptions.abort("MEMSTACK_PG_URL is not set; skipping a shared-mode test");
    }
    SharedTestDatabase database =
        new SharedTestDatabase(
            url,
            blank(System.getenv("MEMSTACK_PG_USER")),
            blank(System.getenv("MEMSTACK_PG_PASSWORD")),
            "shared_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
    database.execute("CREATE SCHEMA " + database.schema);
    return database;
  }

  /** The properties of one host: the URL with this schema as its current schema. */
  public SharedProperties properties() {
    return new SharedProperties(
        url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema + ",public",
        user,
        password,
        4,
        Duration.ofSeconds(3));
  }

  /** A new pool on the schema, as one host opens it. */
  public SharedStore openHost() {
    return new SharedStore(properties());
  }

  public void drop() {
    execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }

  public void execute(String sql) {
    Properties properties = new Properties();
    if (user != null) {
      properties.setProperty("user", user);
    }
    if (password != null) {
      properties.setProperty("password", password);
    }
    try (Connection connection = new org.postgresql.Driver().connect(url, properties);
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e, e);
    }
  }

  private static String blank(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
