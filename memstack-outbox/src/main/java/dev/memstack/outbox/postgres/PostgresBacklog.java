package dev.memstack.outbox.postgres;

import dev.memstack.outbox.journal.Journal;
import dev.memstack.outbox.journal.SharedJournal.Pending;
import dev.memstack.outbox.journal.SharedJournal.State;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every host sees of the shared outbox, counted across hosts about once a second: the backlog
 * per provider, who holds which lane, and the bytes and rows of the record table (what {@code
 * max-pending} and {@code max-journal-size} bound).
 */
final class PostgresBacklog {

  private static final Logger log = LoggerFactory.getLogger(PostgresJournal.class);

  private final OutboxDatabase store;
  private final PostgresLeases leases;
  private volatile State state;

  /** The table's bytes (counted as {@link #bytes()}) and rows, as of the last refresh. */
  private final AtomicLong bytes = new AtomicLong();

  private volatile int segments;

  PostgresBacklog(OutboxDatabase store, PostgresLeases leases) {
    this.store = store;
    this.leases = leases;
    this.state = new State(leases.host(), 1, Map.of(), Map.of());
  }

  /** The bytes of the records' bodies (and a frame's overhead each), as of the last refresh. */
  long bytes() {
    return bytes.get();
  }

  /** Records held, as of the last refresh. */
  int segments() {
    return segments;
  }

  State state() {
    return state;
  }

  /** Counts a record this host just appended, until the next refresh. */
  void appended(int bodyBytes) {
    bytes.addAndGet(bodyBytes + Journal.RECORD_OVERHEAD_BYTES);
  }

  void refreshQuietly() {
    try {
      refresh();
    } catch (SQLException | RuntimeException e) {
      if (!leases.closed()) {
        log.debug("Could not refresh the shared outbox state: {}", e.getMessage());
      }
    }
  }

  /** Reads the backlog per provider, the lease holders and the table's bytes. */
  void refresh() throws SQLException {
    Map<String, long[]> pending = new LinkedHashMap<>();
    Map<String, String> holders = new LinkedHashMap<>();
    try (Connection c = store.dataSource().getConnection();
        Statement statement = c.createStatement()) {
      try (ResultSet rows =
          statement.executeQuery(
              "SELECT l.provider, count(*) FILTER (WHERE r.kind = "
                  + PostgresRows.TURN
                  + "), count(*) FILTER (WHERE r.kind = "
                  + PostgresRows.ERASE
                  + "), min(r.accepted_at) FROM memstack_outbox_lane l JOIN"
                  + " memstack_outbox_record r ON r.shard = l.shard AND r.position >= l.next"
                  + " AND l.provider = ANY (r.recipients) WHERE l.lane = l.provider || '#' ||"
                  + " l.shard GROUP BY l.provider")) {
        while (rows.next()) {
          pending.put(
              rows.getString(1), new long[] {rows.getLong(2), rows.getLong(3), rows.getLong(4)});
        }
      }
      try (ResultSet rows =
          statement.executeQuery(
              "SELECT provider, lane, holder, lease_until > now(), cardinality(parked_owners),"
                  + " (SELECT min(a) FROM unnest(parked_at) a) FROM memstack_outbox_lane"
                  + " WHERE lane = provider || '#' || shard ORDER BY provider, shard")) {
        while (rows.next()) {
          String provider = rows.getString(1);
          long[] counts = pending.computeIfAbsent(provider, p -> new long[] {0, 0, Long.MAX_VALUE});
          if (rows.getString(3) != null && rows.getBoolean(4)) {
            holders.put(rows.getString(2), rows.getString(3));
          }
          int parked = rows.getInt(5);
          if (parked > 0) {
            counts[1] += parked;
            counts[2] = Math.min(counts[2], rows.getLong(6));
          }
        }
      }
      refreshBytes(statement);
    }
    Map<String, Pending> byProvider = new LinkedHashMap<>();
    pending.forEach((id, n) -> byProvider.put(id, new Pending(n[0], n[1], n[2])));
    state =
        new State(leases.host(), leases.liveHosts(), Map.copyOf(byProvider), Map.copyOf(holders));
  }

  /**
   * The position after the newest turn waiting for {@code provider} that is not among its newest
   * {@code keep} waiting turns; empty while no more than {@code keep} wait.
   */
  OptionalLong cut(String provider, int keep) throws SQLException {
    return PostgresRows.query(
        store,
        "SELECT r.position FROM memstack_outbox_lane l JOIN memstack_outbox_record r ON r.shard ="
            + " l.shard AND r.position >= l.next AND l.provider = ANY (r.recipients) WHERE"
            + " l.provider = ? AND l.lane = l.provider || '#' || l.shard AND r.kind = ?"
            + " ORDER BY r.position DESC OFFSET ? LIMIT 1",
        PostgresRows.values(provider, PostgresRows.TURN, keep),
        rows -> rows.next() ? OptionalLong.of(rows.getLong(1) + 1) : OptionalLong.empty());
  }

  void refreshBytesQuietly() {
    try (Connection c = store.dataSource().getConnection();
        Statement statement = c.createStatement()) {
      refreshBytes(statement);
    } catch (SQLException e) {
      log.debug("Could not measure the shared outbox: {}", e.getMessage());
    }
  }

  private void refreshBytes(Statement statement) throws SQLException {
    try (ResultSet rows =
        statement.executeQuery(
            "SELECT coalesce(sum(octet_length(body)), 0), count(*) FROM memstack_outbox_record")) {
      rows.next();
      int count = rows.getInt(2);
      bytes.set(rows.getLong(1) + (long) count * Journal.RECORD_OVERHEAD_BYTES);
      segments = count;
    }
  }
}
