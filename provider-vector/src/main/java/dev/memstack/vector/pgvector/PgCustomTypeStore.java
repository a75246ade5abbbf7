package dev.memstack.vector.pgvector;

import dev.memstack.spi.AgentId;
import dev.memstack.vector.types.CustomTypeStore;
import dev.memstack.vector.types.MemoryType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The pgvector store's custom types: {@code <table>_types} beside the records table ({@code PRIMARY
 * KEY (agent, key)}, created with the store's schema). Every change is one SQL statement, so hosts
 * sharing the table cannot overwrite each other: a create is an {@code INSERT ... ON CONFLICT DO
 * NOTHING} guarded by the agent's count, a delete a {@code DELETE} by key. Nothing is cached.
 */
public final class PgCustomTypeStore implements CustomTypeStore {

  private final DataSource dataSource;
  private final String table;
  private final String displayName;

  private PgCustomTypeStore(DataSource dataSource, String table, String displayName) {
    this.dataSource = dataSource;
    this.table = table;
    this.displayName = displayName;
  }

  /** The custom types beside this store's table, on its connection pool. */
  public static PgCustomTypeStore of(PgVectorMemoryStore store) {
    PgVectorSchema schema = store.schema();
    return new PgCustomTypeStore(
        store.dataSource(), schema.typesTable(), schema.displayName() + "_types");
  }

  @Override
  public List<MemoryType> list(AgentId agent) {
    return query(
        "SELECT key, name, description, icon FROM " + table + " WHERE agent = ? ORDER BY key",
        agent.value(),
        null);
  }

  @Override
  public Optional<MemoryType> find(AgentId agent, String key) {
    return query(
            "SELECT key, name, description, icon FROM " + table + " WHERE agent = ? AND key = ?",
            agent.value(),
            key)
        .stream()
        .findFirst();
  }

  @Override
  public Outcome create(AgentId agent, MemoryType type, int limit) {
    String insert =
        "INSERT INTO "
            + table
            + " (agent, key, name, description, icon) SELECT ?, ?, ?, ?, ?"
            + " WHERE (SELECT count(*) FROM "
            + table
            + " WHERE agent = ?) < ?"
            + " ON CONFLICT (agent, key) DO NOTHING";
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(insert)) {
      statement.setString(1, agent.value());
      statement.setString(2, type.key());
      statement.setString(3, type.name());
      statement.setString(4, type.description());
      statement.setString(5, type.icon());
      statement.setString(6, agent.value());
      statement.setInt(7, limit);
      if (statement.executeUpdate() == 1) {
        return Outcome.CREATED;
      }
    } catch (SQLException e) {
      throw failed("create a type", e);
    }
    return find(agent, type.key()).isPresent() ? Outcome.EXISTS : Outcome.FULL;
  }

  @Override
  public boolean delete(AgentId agent, String key) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement =
            connection.prepareStatement("DELETE FROM " + table + " WHERE agent = ? AND key = ?")) {
      statement.setString(1, agent.value());
      statement.setString(2, key);
      return statement.executeUpdate() > 0;
    } catch (SQLException e) {
      throw failed("delete a type", e);
    }
  }

  private List<MemoryType> query(String sql, String agent, String key) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, agent);
      if (key != null) {
        statement.setString(2, key);
      }
      List<MemoryType> types = new ArrayList<>();
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          types.add(
              MemoryType.custom(
                  rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4)));
        }
      }
      return types;
    } catch (SQLException e) {
      throw failed("read types", e);
    }
  }

  private IllegalStateException failed(String what, SQLException e) {
    return new IllegalStateException(
        "pgvector " + displayName + ": could not " + what + ": " + e.getMessage(), e);
  }
}
