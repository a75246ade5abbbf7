package dev.memstack.outbox.postgres;

import dev.memstack.outbox.journal.CursorStore.ParkedErase;
import dev.memstack.outbox.journal.Journal.Cursor;
import dev.memstack.outbox.journal.Journal.Entry;
import dev.memstack.outbox.journal.JournalRecord;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** How the outbox tables' rows map to journal values, for the PostgreSQL journal's classes. */
final class PostgresRows {

  /** {@code kind} of a turn row. */
  static final short TURN = 1;

  /** {@code kind} of an erasure row. */
  static final short ERASE = 2;

  /** Binds a statement's parameters. */
  interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  /** Reads a query's whole answer. */
  interface Reader<T> {
    T read(ResultSet rows) throws SQLException;
  }

  private PostgresRows() {}

  /** Runs one query on a connection of its own and reads its answer. */
  static <T> T query(OutboxDatabase store, String sql, Binder binder, Reader<T> reader)
      throws SQLException {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement statement = c.prepareStatement(sql)) {
      binder.bind(statement);
      try (ResultSet rows = statement.executeQuery()) {
        return reader.read(rows);
      }
    }
  }

  /** Runs one update on a connection of its own; how many rows it changed. */
  static int update(OutboxDatabase store, String sql, Binder binder) throws SQLException {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement statement = c.prepareStatement(sql)) {
      binder.bind(statement);
      return statement.executeUpdate();
    }
  }

  /** Binds {@code values} in order, each as its JDBC object ({@code setObject}). */
  static Binder values(Object... values) {
    return statement -> {
      for (int i = 0; i < values.length; i++) {
        statement.setObject(i + 1, values[i]);
      }
    };
  }

  /** Runs one statement on {@code c} with {@code values} bound in order. */
  static void execute(Connection c, String sql, Object... values) throws SQLException {
    try (PreparedStatement statement = c.prepareStatement(sql)) {
      values(values).bind(statement);
      statement.execute();
    }
  }

  /** The kind column's value of a record. */
  static short kind(JournalRecord.Kind kind) {
    return kind == JournalRecord.Kind.TURN ? TURN : ERASE;
  }

  static Entry entry(ResultSet rows) throws SQLException {
    long position = rows.getLong(1);
    JournalRecord.Kind kind =
        rows.getShort(2) == TURN ? JournalRecord.Kind.TURN : JournalRecord.Kind.ERASE;
    Array recipients = rows.getArray(4);
    List<String> ids = Arrays.asList((String[]) recipients.getArray());
    JournalRecord.Header header =
        new JournalRecord.Header(kind, rows.getLong(3), List.copyOf(ids), rows.getString(5));
    return new Entry(position, header, null);
  }

  static List<ParkedErase> parked(ResultSet rows, int column) throws SQLException {
    String[] owners = (String[]) rows.getArray(column).getArray();
    Long[] at = (Long[]) rows.getArray(column + 1).getArray();
    List<ParkedErase> parked = new ArrayList<>(owners.length);
    for (int i = 0; i < owners.length; i++) {
      parked.add(new ParkedErase(owners[i], at[i]));
    }
    return parked;
  }

  static void bindCursor(PreparedStatement statement, Cursor cursor) throws SQLException {
    Connection c = statement.getConnection();
    statement.setLong(1, cursor.next());
    statement.setArray(
        2, c.createArrayOf("text", cursor.parked().stream().map(ParkedErase::owner).toArray()));
    statement.setArray(
        3,
        c.createArrayOf(
            "bigint", cursor.parked().stream().map(ParkedErase::acceptedAtMillis).toArray()));
  }

  static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      // the connection is broken; the pool drops it
    }
  }
}
