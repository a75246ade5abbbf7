package dev.memstack.vector.pgvector;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.vector.contradictions.Contradiction;
import dev.memstack.vector.contradictions.ContradictionQueue;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The pgvector store's {@link ContradictionQueue}: the {@code <table>_contradictions} table, shared
 * by every host of the table. Opening is {@code INSERT ... ON CONFLICT DO NOTHING}, closing a
 * {@code DELETE} whose row count says which caller closed it.
 */
public final class PgContradictionQueue implements ContradictionQueue {

  private static final String COLUMNS = "id, agent, owner, scope, existing, incoming, created_at";

  private final PgTable table;

  /** The contradictions beside {@code store}'s table, on its connection pool. */
  public PgContradictionQueue(PgVectorMemoryStore store) {
    this.table = store.table();
  }

  private String name() {
    return table.schema.contradictionsTable();
  }

  @Override
  public boolean add(Contradiction c) {
    return table.update(
            "open a contradiction",
            "INSERT INTO "
                + name()
                + " ("
                + COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            c.id(),
            c.agent().value(),
            c.owner() == null ? null : c.owner().value(),
            c.scope().name(),
            c.existing(),
            c.incoming(),
            Timestamp.from(c.createdAt()))
        == 1;
  }

  @Override
  public Optional<Contradiction> get(String id) {
    Objects.requireNonNull(id, "id");
    return select("SELECT " + COLUMNS + " FROM " + name() + " WHERE id = ?", id).stream()
        .findFirst();
  }

  @Override
  public List<Contradiction> visibleTo(AgentId agent, OwnerKey owner) {
    String sql =
        "SELECT "
            + COLUMNS
            + " FROM "
            + name()
            + " WHERE scope = 'GLOBAL' OR (agent = ? AND (scope = 'TEAM' OR owner = ?))"
            + " ORDER BY created_at, id";
    return select(sql, agent.value(), owner == null ? null : owner.value());
  }

  @Override
  public List<Contradiction> contradicting(Collection<String> existingIds) {
    if (existingIds.isEmpty()) {
      return List.of();
    }
    return select(
        "SELECT "
            + COLUMNS
            + " FROM "
            + name()
            + " WHERE existing = ANY(?) ORDER BY created_at, id",
        existingIds);
  }

  @Override
  public boolean remove(String id) {
    return !delete("DELETE FROM " + name() + " WHERE id = ? RETURNING " + COLUMNS, id).isEmpty();
  }

  @Override
  public List<Contradiction> removeNaming(String recordId) {
    return delete(
        "DELETE FROM " + name() + " WHERE existing = ? OR incoming = ? RETURNING " + COLUMNS,
        recordId,
        recordId);
  }

  @Override
  public long deleteOwner(OwnerKey owner) {
    return delete("DELETE FROM " + name() + " WHERE owner = ? RETURNING " + COLUMNS, owner.value())
        .size();
  }

  private List<Contradiction> select(String sql, Object... params) {
    return table.query("read contradictions", sql, PgContradictionQueue::read, params);
  }

  private List<Contradiction> delete(String sql, Object... params) {
    return table.query("close contradictions", sql, PgContradictionQueue::read, params);
  }

  private static Contradiction read(ResultSet row) throws SQLException {
    String owner = row.getString("owner");
    return new Contradiction(
        row.getString("id"),
        AgentId.of(row.getString("agent")),
        owner == null ? null : OwnerKey.of(owner),
        Scope.valueOf(row.getString("scope")),
        row.getString("existing"),
        row.getString("incoming"),
        row.getTimestamp("created_at").toInstant());
  }
}
