package dev.memstack.it;

import dev.memstack.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A fresh database with pgvector on the PostgreSQL server of {@code MEMSTACK_PG_URL} ({@link
 * TestPostgres}), created for one test and dropped after it. Without the variable the test is
 * skipped locally and fails on CI ({@code CI=true}).
 */
final class SharedTestDatabase implements AutoCloseable {

  private final TestPostgres server;
  private final String name;
  private final TestPostgres database;

  private SharedTestDatabase(TestPostgres server) {
    this.server = server;
    this.name = server.createDatabase("memstack_it_");
    this.database = server.onDatabase(name);
    database.execute("CREATE EXTENSION IF NOT EXISTS vector");
  }

  /**
   * A new database, or the test skipped (locally) / failed (CI) without {@code MEMSTACK_PG_URL}.
   */
  static SharedTestDatabase create() {
    return new SharedTestDatabase(TestPostgres.fromEnvironment());
  }

  /** The host settings that put a host in shared mode on this database. */
  Map<String, String> hostProperties() {
    Map<String, String> properties = new java.util.LinkedHashMap<>();
    properties.put("memstack.shared.jdbc-url", database.url());
    properties.put(
        "memstack.shared.username", database.user() == null ? "postgres" : database.user());
    if (database.password() != null) {
      properties.put("memstack.shared.password", database.password());
    }
    return properties;
  }

  Connection connect() throws SQLException {
    return database.connect();
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
  public void close() {
    server.dropDatabase(name);
  }
}
