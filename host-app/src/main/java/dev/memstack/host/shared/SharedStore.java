package dev.memstack.host.shared;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.memstack.outbox.postgres.OutboxDatabase;
import dev.memstack.spi.SharedDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared database of shared mode: its pool, and the versioned schema steps of each host
 * component. Every component that keeps state there ({@code outbox}, {@code conversations}, {@code
 * coordination}, ...) calls {@link #migrate} at start with its steps in order; the steps already
 * applied (table {@code memstack_schema}) are skipped and the rest run in one transaction under an
 * advisory lock, so two hosts starting at once apply each step exactly once.
 */
public final class SharedStore implements AutoCloseable, OutboxDatabase {

  private static final Logger log = LoggerFactory.getLogger(SharedStore.class);

  /** Advisory lock key of schema changes (any constant: every host uses the same one). */
  private static final long SCHEMA_LOCK = 0x6d656d7374616bL;

  private final HikariDataSource dataSource;
  private final SharedDatabase database;

  public SharedStore(SharedProperties properties) {
    Objects.requireNonNull(properties.jdbcUrl(), "memstack.shared.jdbc-url");
    HikariConfig config = new HikariConfig();
    config.setPoolName("memstack-shared");
    config.setDriverClassName("org.postgresql.Driver");
    config.setJdbcUrl(properties.jdbcUrl());
    if (properties.username() != null) {
      config.setUsername(properties.username());
    }
    if (properties.password() != null) {
      config.setPassword(properties.password());
    }
    config.setMaximumPoolSize(properties.poolSize());
    config.setMinimumIdle(1);
    config.setConnectionTimeout(properties.connectTimeout().toMillis());
    config.setInitializationFailTimeout(-1);
    this.dataSource = new HikariDataSource(config);
    this.database =
        new SharedDatabase(properties.jdbcUrl(), properties.username(), properties.password());
  }

  /** The pool. */
  @Override
  public DataSource dataSource() {
    return dataSource;
  }

  /** What providers are told about the database ({@code ProviderContext.sharedDatabase()}). */
  public SharedDatabase database() {
    return database;
  }

  /** Where the database is, without credentials, for logs and errors. */
  @Override
  public String describe() {
    return redact(database.jdbcUrl());
  }

  /**
   * Brings the schema of {@code component} up to {@code steps.size()}: step {@code i} (SQL, one or
   * more statements separated by {@code ;} at line ends) runs once, ever, across all hosts.
   *
   * @throws SQLException when the database cannot be reached or a step fails (the start then stops,
   *     naming the component)
   */
  @Override
  public void migrate(String component, List<String> steps) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        statement.execute("SELECT pg_advisory_xact_lock(" + SCHEMA_LOCK + ")");
        statement.execute(
            "CREATE TABLE IF NOT EXISTS memstack_schema (component text NOT NULL, version int NOT"
                + " NULL, applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component,"
                + " version))");
      }
      int applied = 0;
      try (PreparedStatement query =
          connection.prepareStatement(
              "SELECT coalesce(max(version), 0) FROM memstack_schema WHERE component = ?")) {
        query.setString(1, component);
        try (ResultSet rows = query.executeQuery()) {
          rows.next();
          applied = rows.getInt(1);
        }
      }
      for (int version = applied + 1; version <= steps.size(); version++) {
        try (Statement statement = connection.createStatement()) {
          for (String sql : steps.get(version - 1).split(";\\s*\\n")) {
            if (!sql.isBlank()) {
              statement.execute(sql);
            }
          }
        }
        try (PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO memstack_schema (component, version) VALUES (?, ?)")) {
          insert.setString(1, component);
          insert.setInt(2, version);
          insert.executeUpdate();
        }
        log.info("shared database {}: {} schema step {} applied", describe(), component, version);
      }
      connection.commit();
    }
  }

  @Override
  public void close() {
    dataSource.close();
  }

  /** A JDBC URL without its query (where passwords may sit). */
  static String redact(String jdbcUrl) {
    int query = jdbcUrl.indexOf('?');
    return query < 0 ? jdbcUrl : jdbcUrl.substring(0, query) + "?…";
  }
}
