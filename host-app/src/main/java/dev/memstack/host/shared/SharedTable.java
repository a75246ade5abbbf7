package dev.memstack.host.shared;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A host store's table in the shared database ({@link SharedStore}) whose rows belong to an agent,
 * owner and conversation (columns {@code agent}, {@code owner}, {@code conversation}): created or
 * upgraded at start, read and written with failures that name the store, and erased per
 * conversation and per owner (then {@code VACUUM}ed, so the pages keep no copy). Thread-safe.
 */
public abstract class SharedTable {

  /** What a store does on one connection. */
  @FunctionalInterface
  protected interface Work {
    void run(Connection connection) throws SQLException;
  }

  /**
   * The schema step that creates a table of conversation rows: the columns every such table has
   * ({@code agent}, {@code owner} and {@code conversation}, text) and then {@code columns}; the
   * primary key of those three and then {@code key}; then the {@code indexes} the store needs
   * ({@link #index}), and last the index on {@code owner} that {@link #forget} uses.
   */
  protected static String createTable(String table, String columns, String key, String... indexes) {
    List<String> statements = new ArrayList<>();
    statements.add(
        "CREATE TABLE IF NOT EXISTS "
            + table
            + " (agent text NOT NULL, owner text NOT NULL, conversation text NOT NULL, "
            + columns
            + ", PRIMARY KEY (agent, owner, conversation, "
            + key
            + "))");
    statements.addAll(List.of(indexes));
    statements.add(index(table, "owner", "owner"));
    return String.join(";\n", statements);
  }

  /** An index {@code <table>_<name>_idx} of {@code table} on {@code columns}. */
  protected static String index(String table, String name, String columns) {
    return "CREATE INDEX IF NOT EXISTS "
        + table
        + "_"
        + name
        + "_idx ON "
        + table
        + " ("
        + columns
        + ")";
  }

  private final SharedStore store;
  private final String table;
  private final String name;

  /**
   * Creates or upgrades the table: the steps {@code schema} of component {@code component}, once
   * across hosts.
   *
   * @param name how failures name the store ({@code conversation log})
   * @throws IllegalStateException naming the database when it cannot be set up
   */
  protected SharedTable(
      SharedStore store, String table, String name, String component, List<String> schema) {
    this.store = Objects.requireNonNull(store, "store");
    this.table = Objects.requireNonNull(table, "table");
    this.name = Objects.requireNonNull(name, "name");
    store.migrateAtStart(component, schema, name);
  }

  /**
   * The rows {@code sql} selects with {@code parameters} ({@link SharedStore#bind}), each read by
   * {@code reader}.
   *
   * @throws UncheckedIOException naming the store and {@code action} when the database fails
   */
  protected final <T> List<T> select(
      String action, String sql, List<?> parameters, SharedStore.RowReader<T> reader) {
    try {
      return store.select(sql, parameters, reader);
    } catch (SQLException e) {
      throw failure(action, e);
    }
  }

  /**
   * Runs {@code work} on a connection of its own, in autocommit.
   *
   * @throws UncheckedIOException naming the store and {@code action} when the database fails
   */
  protected final void write(String action, Work work) {
    try (Connection connection = store.dataSource().getConnection()) {
      work.run(connection);
    } catch (SQLException e) {
      throw failure(action, e);
    }
  }

  /**
   * Runs {@code work} in one transaction: committed when it returns, rolled back when it throws.
   *
   * @throws UncheckedIOException naming the store and {@code action} when the database fails
   */
  protected final void transaction(String action, Work work) {
    write(
        action,
        connection -> {
          connection.setAutoCommit(false);
          try {
            work.run(connection);
            connection.commit();
          } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
          }
        });
  }

  /**
   * Inserts a row with {@code columns} (comma-separated) set to {@code values}, unless its primary
   * key is taken; returns whether it was inserted.
   */
  protected final boolean insertIfAbsent(Connection connection, String columns, Object... values)
      throws SQLException {
    String placeholders = String.join(", ", Collections.nCopies(values.length, "?"));
    return update(
            connection,
            "INSERT INTO "
                + table
                + " ("
                + columns
                + ") VALUES ("
                + placeholders
                + ") ON CONFLICT DO NOTHING",
            values)
        > 0;
  }

  /** Runs {@code sql} with {@code values} as its parameters; returns how many rows it changed. */
  protected static int update(Connection connection, String sql, Object... values)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      SharedStore.bind(statement, Arrays.asList(values));
      return statement.executeUpdate();
    }
  }

  /**
   * Deletes the rows of one conversation; returns how many went.
   *
   * @throws UncheckedIOException naming the store and {@code action} when the database fails
   */
  protected final long deleteConversation(
      String action, AgentId agent, OwnerKey owner, String conversationId) {
    try {
      return store.deleteConversation(table, agent, owner, conversationId);
    } catch (SQLException e) {
      throw failure(action, e);
    }
  }

  /**
   * Deletes the rows of {@code owner} and, when any went, {@code VACUUM}s the table; returns how
   * many went.
   *
   * @throws UncheckedIOException naming the store when the database fails
   */
  public long forget(OwnerKey owner) {
    return store.eraseOwner(table, owner, name);
  }

  private UncheckedIOException failure(String action, SQLException e) {
    return store.failure(name, action, e);
  }
}
