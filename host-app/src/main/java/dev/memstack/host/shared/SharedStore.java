package dev.memstack.host.shared;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.memstack.outbox.postgres.OutboxDatabase;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.SharedDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
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

  /**
   * {@link #migrate}s {@code component} at the start of the store it belongs to ({@code what}, for
   * the message).
   *
   * @throws IllegalStateException naming {@code what} and the database when it cannot be set up
   */
  public void migrateAtStart(String component, List<String> steps, String what) {
    try {
      migrate(component, steps);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot create the "
              + what
              + " in the shared database "
              + describe()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** Reads the current row of a result. */
  @FunctionalInterface
  public interface RowReader<T> {
    T read(ResultSet row) throws SQLException;
  }

  /**
   * The rows {@code sql} selects with these parameters ({@link #bind}), each read by {@code
   * reader}.
   */
  public <T> List<T> select(String sql, List<?> parameters, RowReader<T> reader)
      throws SQLException {
    List<T> found = new ArrayList<>();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      bind(query, parameters);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          found.add(reader.read(rows));
        }
      }
    }
    return found;
  }

  /**
   * Sets the parameters of {@code statement} to {@code values}, in order: an {@link Instant} as a
   * {@link Timestamp} ({@code timestamptz} columns), any other value as the driver maps its type
   * ({@code setObject}: a {@code String} as text, an {@code Integer} as an integer, ...).
   */
  public static void bind(PreparedStatement statement, List<?> values) throws SQLException {
    for (int i = 0; i < values.size(); i++) {
      Object value = values.get(i);
      statement.setObject(
          i + 1, value instanceof Instant instant ? Timestamp.from(instant) : value);
    }
  }

  /**
   * The failure of a store kept in this database ({@code store}, e.g. {@code conversation log}): it
   * cannot {@code action}.
   */
  public UncheckedIOException failure(String store, String action, SQLException e) {
    return new UncheckedIOException(
        new IOException(
            store + " in " + describe() + ": cannot " + action + ": " + e.getMessage(), e));
  }

  /**
   * Deletes the rows of {@code owner} (column {@code owner}) from {@code table} of {@code store}
   * and, when any went, {@code VACUUM}s the table so no copy of them stays on disk; returns how
   * many went.
   *
   * @throws UncheckedIOException naming {@code store} when the database fails
   */
  public long eraseOwner(String table, OwnerKey owner, String store) {
    long removed;
    try (Connection connection = dataSource.getConnection()) {
      try (PreparedStatement delete =
          connection.prepareStatement("DELETE FROM " + table + " WHERE owner = ?")) {
        delete.setString(1, owner.value());
        removed = delete.executeUpdate();
      }
      if (removed > 0) {
        // VACUUM cannot run in a transaction; the pool's connections are in autocommit
        try (Statement vacuum = connection.createStatement()) {
          vacuum.execute("VACUUM " + table);
        }
      }
    } catch (SQLException e) {
      throw failure(store, "erase an owner", e);
    }
    return removed;
  }

  /**
   * Deletes the rows of one conversation (columns {@code agent}, {@code owner}, {@code
   * conversation}) from {@code table}; returns how many went.
   */
  public long deleteConversation(String table, AgentId agent, OwnerKey owner, String conversationId)
      throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement delete =
            connection.prepareStatement(
                "DELETE FROM " + table + " WHERE agent = ? AND owner = ? AND conversation = ?")) {
      bind(delete, List.of(agent.value(), owner.value(), conversationId));
      return delete.executeUpdate();
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
