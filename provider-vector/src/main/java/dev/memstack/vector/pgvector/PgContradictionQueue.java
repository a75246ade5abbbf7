package dev.memstack.vector.pgvector;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.vector.contradictions.Contradiction;
import dev.memstack.vector.contradictions.ContradictionQueue;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
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
  private final String name;

  private PgContradictionQueue(PgTable table) {
    this.table = table;
    this.name = table.schema.contradictionsTable();
  }

  /** The contradictions beside this store's table, on its connection pool. */
  public static PgContradictionQueue of(PgVectorMemoryStore store) {
    return new PgContradictionQueue(store.table());
  }

  @Override
  public boolean add(Contradiction c) {
    try (Connection connection = table.dataSource.getConnection();
        PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO "
                    + name
                    + " ("
                    + COLUMNS
                    + ") VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING")) {
      insert.setString(1, c.id());
      insert.setString(2, c.agent().value());
      if (c.owner() == null) {
        insert.setNull(3, Types.VARCHAR);
      } else {
        insert.setString(3, c.owner().value());
      }
      insert.setString(4, c.scope().name());
      insert.setString(5, c.existing());
      insert.setString(6, c.incoming());
      insert.setTimestamp(7, Timestamp.from(c.createdAt()));
      return insert.executeUpdate() == 1;
    } catch (SQLException e) {
      throw table.failure("open a contradiction", e);
    }
  }

  @Override
  public Optional<Contradiction> get(String id) {
    Objects.requireNonNull(id, "id");
    return select("SELECT " + COLUMNS + " FROM " + name + " WHERE id = ?", id).stream().findFirst();
  }

  @Override
  public List<Contradiction> visibleTo(AgentId agent, OwnerKey owner) {
    String sql =
        "SELECT "
            + COLUMNS
            + " FROM "
            + name
            + " WHERE scope = 'GLOBAL' OR (agent = ? AND (scope = 'TEAM' OR owner = ?))"
            + " ORDER BY created_at, id";
    return select(sql, agent.value(), owner == null ? null : owner.value());
  }

  @Override
  public List<Contradiction> contradicting(Collection<String> existingIds) {
    if (existingIds.isEmpty()) {
      return List.of();
    }
    try (Connection connection = table.dataSource.getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT "
                    + COLUMNS
                    + " FROM "
                    + name
                    + " WHERE existing = ANY(?) ORDER BY created_at, id")) {
      select.setArray(1, PgTable.textArray(connection, existingIds));
      return rows(select);
    } catch (SQLException e) {
      throw table.failure("read contradictions", e);
    }
  }

  @Override
  public boolean remove(String id) {
    return !delete("DELETE FROM " + name + " WHERE id = ? RETURNING " + COLUMNS, id).isEmpty();
  }

  @Override
  public List<Contradiction> removeNaming(String recordId) {
    return delete(
        "DELETE FROM " + name + " WHERE existing = ? OR incoming = ? RETURNING " + COLUMNS,
        recordId,
        recordId);
  }

  @Override
  public long deleteOwner(OwnerKey owner) {
    return delete("DELETE FROM " + name + " WHERE owner = ? RETURNING " + COLUMNS, owner.value())
        .size();
  }

  private List<Contradiction> select(String sql, String... params) {
    try (Connection connection = table.dataSource.getConnection();
        PreparedStatement select = connection.prepareStatement(sql)) {
      bind(select, params);
      return rows(select);
    } catch (SQLException e) {
      throw table.failure("read contradictions", e);
    }
  }

  private List<Contradiction> delete(String sql, String... params) {
    try (Connection connection = table.dataSource.getConnection();
        PreparedStatement delete = connection.prepareStatement(sql)) {
      bind(delete, params);
      return rows(delete);
    } catch (SQLException e) {
      throw table.failure("close contradictions", e);
    }
  }

  private static void bind(PreparedStatement statement, String... params) throws SQLException {
    for (int i = 0; i < params.length; i++) {
      if (params[i] == null) {
        statement.setNull(i + 1, Types.VARCHAR);
      } else {
        statement.setString(i + 1, params[i]);
      }
    }
  }

  private static List<Contradiction> rows(PreparedStatement statement) throws SQLException {
    List<Contradiction> found = new ArrayList<>();
    try (ResultSet rows = statement.executeQuery()) {
      while (rows.next()) {
        String owner = rows.getString("owner");
        found.add(
            new Contradiction(
                rows.getString("id"),
                AgentId.of(rows.getString("agent")),
                owner == null ? null : OwnerKey.of(owner),
                Scope.valueOf(rows.getString("scope")),
                rows.getString("existing"),
                rows.getString("incoming"),
                rows.getTimestamp("created_at").toInstant()));
      }
    }
    return found;
  }
}
