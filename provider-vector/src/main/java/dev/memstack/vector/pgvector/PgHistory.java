package dev.memstack.vector.pgvector;

import dev.memstack.spi.OwnerKey;
import dev.memstack.vector.store.HistoryEvent;
import dev.memstack.vector.store.MemoryHistory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import tools.jackson.core.type.TypeReference;

/**
 * The pgvector store's {@link MemoryHistory}: the {@code <table>_history} table, one row per event
 * (the event as {@code jsonb}), shared by every host of the database. A forget deletes the record's
 * rows and inserts its {@code forgotten} row in one transaction.
 */
final class PgHistory implements MemoryHistory {

  private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {};

  private final PgTable table;

  PgHistory(PgTable table) {
    this.table = table;
  }

  @Override
  public void append(HistoryEvent event) {
    try (Connection connection = table.dataSource.getConnection()) {
      insert(connection, event);
    } catch (SQLException e) {
      throw table.failure("append to the history", e);
    }
  }

  @Override
  public List<HistoryEvent> of(String id) {
    Objects.requireNonNull(id, "id");
    return table.query(
        "read the history",
        "SELECT event::text FROM " + table.schema.historyTable() + " WHERE id = ? ORDER BY seq",
        row -> HistoryEvent.fromMap(PgTable.JSON.readValue(row.getString(1), MAP)),
        id);
  }

  @Override
  public void forget(HistoryEvent forgotten) {
    try (Connection connection = table.dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try (PreparedStatement delete =
          connection.prepareStatement(
              "DELETE FROM " + table.schema.historyTable() + " WHERE id = ?")) {
        delete.setString(1, forgotten.id());
        delete.executeUpdate();
        insert(connection, forgotten);
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw table.failure("forget in the history", e);
    }
  }

  @Override
  public long deleteOwner(OwnerKey owner) {
    return table.deleteOwnerRows(table.schema.historyTable(), owner);
  }

  private void insert(Connection connection, HistoryEvent event) throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO "
                + table.schema.historyTable()
                + " (id, owner, event) VALUES (?, ?, ?::jsonb)")) {
      insert.setString(1, event.id());
      if (event.owner() == null) {
        insert.setNull(2, Types.VARCHAR);
      } else {
        insert.setString(2, event.owner().value());
      }
      insert.setString(3, PgTable.JSON.writeValueAsString(event.toMap()));
      insert.executeUpdate();
    }
  }
}
