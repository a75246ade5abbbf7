package dev.memstack.host.console;

import dev.memstack.host.shared.SharedStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The rows of every host in the shared database: table {@value #TABLE}, one row per agent (the
 * empty agent for a host's own row), time and host (the primary key), an index on the time for the
 * deletion of old rows, which every host runs after its own sampling. Created at start (component
 * {@code console}, once across hosts). No row names an owner, so erasing an owner leaves this table
 * alone. Thread-safe.
 */
public final class PostgresStatsSamples implements StatsSamples {

  /** The table. */
  public static final String TABLE = "memstack_console_samples";

  private static final String NAME = "console statistics";

  private static final List<String> SCHEMA =
      List.of(
          "CREATE TABLE IF NOT EXISTS "
              + TABLE
              + " (host text NOT NULL, agent text NOT NULL, at timestamptz NOT NULL,"
              + " memories bigint, turns bigint, pending bigint, dead_letters bigint,"
              + " delivered bigint,"
              + " PRIMARY KEY (agent, at, host));\n"
              + "CREATE INDEX IF NOT EXISTS "
              + TABLE
              + "_at_idx ON "
              + TABLE
              + " (at)");

  private final SharedStore store;

  /**
   * Creates the table when missing.
   *
   * @throws IllegalStateException naming the database when it cannot be set up
   */
  public PostgresStatsSamples(SharedStore store) {
    this.store = Objects.requireNonNull(store, "store");
    store.migrateAtStart("console", SCHEMA, NAME);
  }

  @Override
  public void add(StatsSample sample) {
    update(
        "keep a sample",
        "INSERT INTO "
            + TABLE
            + " (host, agent, at, memories, turns, pending, dead_letters, delivered)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        sample.host(),
        sample.agent(),
        sample.at(),
        sample.memories(),
        sample.turns(),
        sample.pending(),
        sample.deadLetters(),
        sample.delivered());
  }

  @Override
  public List<StatsSample> since(String agent, Instant from) {
    try {
      return store.select(
          "SELECT host, agent, at, memories, turns, pending, dead_letters, delivered FROM "
              + TABLE
              + " WHERE agent IN (?, ?) AND at >= ? ORDER BY at, host, agent",
          List.of(agent, StatsSample.HOST_ROW, from),
          row ->
              new StatsSample(
                  row.getString("host"),
                  row.getString("agent"),
                  row.getTimestamp("at").toInstant(),
                  nullable(row, "memories"),
                  nullable(row, "turns"),
                  nullable(row, "pending"),
                  nullable(row, "dead_letters"),
                  nullable(row, "delivered")));
    } catch (SQLException e) {
      throw store.failure(NAME, "read the samples", e);
    }
  }

  private static Long nullable(ResultSet row, String column) throws SQLException {
    long value = row.getLong(column);
    return row.wasNull() ? null : value;
  }

  @Override
  public long deleteBefore(Instant before) {
    return update("delete old samples", "DELETE FROM " + TABLE + " WHERE at < ?", before);
  }

  private long update(String action, String sql, Object... values) {
    try (Connection connection = store.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      SharedStore.bind(statement, Arrays.asList(values));
      return statement.executeUpdate();
    } catch (SQLException e) {
      throw store.failure(NAME, action, e);
    }
  }
}
