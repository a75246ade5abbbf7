package dev.memstack.it;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Assumptions;

/**
 * A fresh database with pgvector on the PostgreSQL server of {@code MEMSTACK_PG_URL} (what {@code
 * eval "$(scripts/pgvector-setup.sh)"} sets), created for one test and dropped after it. Without
 * the variable the test is skipped locally and fails on CI ({@code CI=true}).
 */
final class SharedTestDatabase implements AutoCloseable {

  private final String serverUrl;
  private final String user;
  private final String password;
  private final String name;
  private final String url;

  private SharedTestDatabase(String serverUrl, String user, String password) throws SQLException {
    this.serverUrl = serverUrl;
    this.user = user;
    this.password = password;
    byte[] random = new byte[4];
    ThreadLocalRandom.current().nextBytes(random);
    this.name = "memstack_it_" + HexFormat.of().formatHex(random);
    try (Connection admin = DriverManager.getConnection(serverUrl, user, password);
        Statement statement = admin.createStatement()) {
      statement.execute("CREATE DATABASE " + name);
    }
    int query = serverUrl.indexOf('?');
    String base = query < 0 ? serverUrl : serverUrl.substring(0, query);
    this.url =
        base.substring(0, base.lastIndexOf('/') + 1)
            + name
            + (query < 0 ? "" : serverUrl.substring(query));
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE EXTENSION IF NOT EXISTS vector");
    }
  }

  /**
   * A new database, or the test skipped (locally) / failed (CI) without {@code MEMSTACK_PG_URL}.
   */
  static SharedTestDatabase create() throws SQLException {
    String url = System.getenv("MEMSTACK_PG_URL");
    if (url == null || url.isBlank()) {
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError(
            "MEMSTACK_PG_URL is not set on CI (CI=true): run eval \"$(scripts/pgvector-setup.sh)\"");
      }
      Assumptions.abort("MEMSTACK_PG_URL is not set; skipping the shared-database test");
    }
    String user = System.getenv().getOrDefault("MEMSTACK_PG_USER", "postgres");
    String password = System.getenv().getOrDefault("MEMSTACK_PG_PASSWORD", "");
    return new SharedTestDatabase(url, user, password);
  }

  /** The host settings that put a host in shared mode on this database. */
  Map<String, String> hostProperties() {
    Map<String, String> properties = new java.util.LinkedHashMap<>();
    properties.put("memstack.shared.jdbc-url", url);
    properties.put("memstack.shared.username", user);
    if (!password.isEmpty()) {
      properties.put("memstack.shared.password", password);
    }
    return properties;
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(url, user, password);
  }

  /** Every value of the first column of {@code sql}, as text. */
  List<String> strings(String sql) throws SQLException {
    List<String> values = new ArrayList<>();
    try (Connection connection = connect();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      while (rows.next()) {
        values.add(rows.getString(1));
      }
    }
    return values;
  }

  /** Every table of the database outside the system schemas, as {@code schema.table}. */
  List<String> tables() throws SQLException {
    return strings(
        "SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE"
            + " table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog',"
            + " 'information_schema') ORDER BY 1");
  }

  @Override
  public void close() throws SQLException {
    try (Connection admin = DriverManager.getConnection(serverUrl, user, password);
        Statement statement = admin.createStatement()) {
      statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }
}
