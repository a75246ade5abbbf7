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

/**
 * The pgvector store's custom types: {@code <table>_types} beside the records table ({@code PRIMARY
 * KEY (agent, key)}, created with the store's schema). Every change is one SQL statement, so hosts
 * sharing the table cannot overwrite each other: a create is an {@code INSERT ... ON CONFLICT DO
 * NOTHING} guarded by the agent's count, a delete a {@code DELETE} by key. Nothing is cached.
 */
public final class PgCustomTypeStore implements CustomTypeStore {

  private final PgTable table;
  private final String types;

  private PgCustomTypeStore(PgTable table) {
    this.table = table;
    this.types = table.schema.typesTable();
  }

  /** The custom types beside this store's table, on its connection pool. */
  public static PgCustomTypeStore of(PgVectorMemoryStore store) {
    return new PgCustomTypeStore(store.table());
  }

  @Override
  public List<MemoryType> list(AgentId agent) {
    return query(
        "SELECT key, name, description, icon FROM " + types + " WHERE agent = ? ORDER BY key",
        agent.value(),
        null);
  }

  @Override
  public Optional<MemoryType> find(AgentId agent, String key) {
    return query(
            "SELECT key, name, description, icon FROM " + types + " WHERE agent = ? AND key = ?",
            agent.value(),
            key)
        .stream()
        .findFirst();
  }

  @Override
  public Outcome create(AgentId agent, MemoryType type, int limit) {
    String insert =
        "INSERT INTO "
            + types
            + " (agent, key, name, description, icon) SELECT ?, ?, ?, ?, ?"
            + " WHERE (SELECT count(*) FROM "
            + types
            + " WHERE agent = ?) < ?"
            + " ON CONFLICT (agent, key) DO NOTHING";
    int created =
        table.update(
            "create a type",
            insert,
            agent.value(),
            type.key(),
            type.name(),
            type.description(),
            type.icon(),
            agent.value(),
            limit);
    if (created == 1) {
      return Outcome.CREATED;
    }
    return find(agent, type.key()).isPresent() ? Outcome.EXISTS : Outcome.FULL;
  }

  @Override
  public boolean delete(AgentId agent, String key) {
    return table.update(
            "delete a type",
            "DELETE FROM " + types + " WHERE agent = ? AND key = ?",
            agent.value(),
            key)
        > 0;
  }

  private List<MemoryType> query(String sql, String agent, String key) {
    try (Connection connection = table.dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, agent);
      if (key != null) {
        statement.setString(2, key);
      }
      List<MemoryType> found = new ArrayList<>();
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          found.add(
              MemoryType.custom(
                  rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4)));
        }
      }
      return found;
    } catch (SQLException e) {
      throw table.failure("read types", e);
    }
  }
}
