package dev.memstack.vector.pgvector;

import dev.memstack.spi.AgentId;
import dev.memstack.vector.types.CustomTypeStore;
import dev.memstack.vector.types.MemoryType;
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

  /** The custom types beside {@code store}'s table, on its connection pool. */
  public PgCustomTypeStore(PgVectorMemoryStore store) {
    this.table = store.table();
    this.types = table.schema.typesTable();
  }

  @Override
  public List<MemoryType> list(AgentId agent) {
    return query(
        "SELECT key, name, description, icon FROM " + types + " WHERE agent = ? ORDER BY key",
        agent.value());
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

  private List<MemoryType> query(String sql, Object... params) {
    return table.query(
        "read types",
        sql,
        row ->
            MemoryType.custom(
                row.getString(1), row.getString(2), row.getString(3), row.getString(4)),
        params);
  }
}
