package dev.memstack.outbox.postgres;

import dev.memstack.outbox.journal.Journal.Cursor;
import dev.memstack.outbox.journal.SharedJournal;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lanes this host holds on the shared outbox and its heartbeat: taking, renewing, claiming and
 * giving up lane leases ({@code holder}, {@code epoch}, {@code lease_until} of {@code
 * memstack_outbox_lane}, on the database's clock), this host's row in {@code memstack_outbox_host},
 * and the count of live hosts that sets each host's share of a provider's lanes.
 */
final class PostgresLeases {

  private static final Logger log = LoggerFactory.getLogger(PostgresJournal.class);

  /** A lane this host holds: its epoch and until when (System.nanoTime) it may assume so. */
  private record Held(long epoch, long untilNanos) {}

  private final OutboxDatabase store;
  private final int shards;
  private final Duration leaseTtl;
  private final String host;
  private final Map<String, Held> held = new ConcurrentHashMap<>();
  private volatile int liveHosts = 1;
  private volatile boolean closed;

  PostgresLeases(OutboxDatabase store, int shards, Duration leaseTtl, String host) {
    this.store = store;
    this.shards = shards;
    this.leaseTtl = leaseTtl;
    this.host = host;
  }

  /**
   * Saves a lane's cursor: guarded by this host's lease when it holds the lane, else only while
   * nobody holds it.
   *
   * @throws IOException when another host holds the lane (or this host lost it)
   */
  void saveCursor(String lane, Cursor cursor) throws IOException {
    Held lease = held.get(lane);
    try {
      if (lease != null ? !saveLeased(lane, lease, cursor, 0) : !saveUnleased(lane, cursor)) {
        held.remove(lane);
        throw new IOException("the outbox lane " + lane + " is leased by another host");
      }
    } catch (SQLException e) {
      throw new IOException("cannot save the outbox cursor of " + lane + ": " + e.getMessage(), e);
    }
  }

  /** Saves the cursor of a lane nobody holds; whether nobody did. */
  private boolean saveUnleased(String lane, Cursor cursor) throws SQLException {
    return PostgresRows.update(
            store,
            "INSERT INTO memstack_outbox_lane AS l (next, parked_owners, parked_at, lane,"
                + " provider, shard) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (lane) DO UPDATE"
                + " SET next = EXCLUDED.next, parked_owners = EXCLUDED.parked_owners,"
                + " parked_at = EXCLUDED.parked_at"
                + " WHERE l.holder IS NULL OR l.lease_until < now()",
            upsert -> {
              PostgresRows.bindCursor(upsert, cursor);
              upsert.setString(4, lane);
              upsert.setString(5, SharedJournal.providerOf(lane));
              upsert.setInt(6, SharedJournal.shardOfLane(lane));
            })
        > 0;
  }

  /**
   * Saves the cursor of a lane this host holds, and that records before {@code attemptedBefore} may
   * be delivered; whether the lease still held (else it is forgotten).
   */
  private boolean saveLeased(String lane, Held lease, Cursor cursor, long attemptedBefore)
      throws SQLException {
    int updated =
        PostgresRows.update(
            store,
            "UPDATE memstack_outbox_lane SET next = ?, parked_owners = ?, parked_at = ?,"
                + " attempted_before = greatest(attempted_before, ?)"
                + " WHERE lane = ? AND holder = ? AND epoch = ?",
            update -> {
              PostgresRows.bindCursor(update, cursor);
              update.setLong(4, attemptedBefore);
              update.setString(5, lane);
              update.setString(6, host);
              update.setLong(7, lease.epoch());
            });
    if (updated == 1) {
      return true;
    }
    held.remove(lane);
    return false;
  }

  /**
   * Takes or renews the lane's lease: renewing is local (the heartbeat renews held leases); taking
   * one succeeds when nobody holds it (or its lease expired) and this host is below its share of
   * the provider's lanes.
   */
  boolean tryLease(String lane) {
    if (closed) {
      return false;
    }
    Held lease = held.get(lane);
    if (lease != null) {
      if (lease.untilNanos() - System.nanoTime() > 0) {
        return true;
      }
      held.remove(lane, lease);
    }
    String provider = SharedJournal.providerOf(lane);
    if (heldOf(provider) >= share()) {
      return false;
    }
    long started = System.nanoTime();
    try {
      Long epoch =
          PostgresRows.query(
              store,
              "INSERT INTO memstack_outbox_lane AS l (lane, provider, shard, holder, epoch,"
                  + " lease_until) VALUES (?, ?, ?, ?, 1, now() + ? * interval '1 millisecond')"
                  + " ON CONFLICT (lane) DO UPDATE SET holder = EXCLUDED.holder,"
                  + " epoch = l.epoch + 1, lease_until = EXCLUDED.lease_until"
                  + " WHERE l.holder IS NULL OR l.holder = EXCLUDED.holder"
                  + " OR l.lease_until < now() RETURNING epoch",
              take -> {
                take.setString(1, lane);
                take.setString(2, provider);
                take.setInt(3, SharedJournal.shardOfLane(lane));
                take.setString(4, host);
                take.setLong(5, leaseTtl.toMillis());
              },
              rows -> rows.next() ? rows.getLong(1) : null);
      if (epoch == null) {
        return false;
      }
      held.put(lane, new Held(epoch, started + leaseTtl.toNanos()));
      log.debug("Host {} took outbox lane {}", host, lane);
      return true;
    } catch (SQLException e) {
      log.debug("Could not take outbox lane {}: {}", lane, e.getMessage());
      return false;
    }
  }

  boolean claim(String lane, Cursor done, long attemptedBefore) throws IOException {
    Held lease = held.get(lane);
    if (lease == null || closed) {
      return false;
    }
    try {
      return saveLeased(lane, lease, done, attemptedBefore);
    } catch (SQLException e) {
      throw new IOException("cannot save the outbox cursor of " + lane + ": " + e.getMessage(), e);
    }
  }

  boolean overShare(String lane) {
    return held.containsKey(lane) && heldOf(SharedJournal.providerOf(lane)) > share();
  }

  void release(String lane) {
    Held lease = held.remove(lane);
    if (lease == null) {
      return;
    }
    try {
      PostgresRows.update(
          store,
          "UPDATE memstack_outbox_lane SET holder = NULL, lease_until = NULL"
              + " WHERE lane = ? AND holder = ? AND epoch = ?",
          update -> {
            update.setString(1, lane);
            update.setString(2, host);
            update.setLong(3, lease.epoch());
          });
      log.debug("Host {} gave outbox lane {} up", host, lane);
    } catch (SQLException e) {
      log.debug("Could not give outbox lane {} up: {}", lane, e.getMessage());
    }
  }

  /** Hosts whose heartbeat is recent, as of the last heartbeat (at least 1). */
  int liveHosts() {
    return liveHosts;
  }

  private int share() {
    return (shards + Math.max(1, liveHosts) - 1) / Math.max(1, liveHosts);
  }

  private int heldOf(String provider) {
    int count = 0;
    for (String lane : held.keySet()) {
      if (SharedJournal.providerOf(lane).equals(provider)) {
        count++;
      }
    }
    return count;
  }

  void heartbeatQuietly() {
    try {
      heartbeat();
    } catch (SQLException | RuntimeException e) {
      if (!closed) {
        log.warn("Outbox heartbeat of host {} failed: {}", host, e.getMessage());
      }
    }
  }

  /** Renews this host's row and every lease it holds; forgets the ones it lost. */
  void heartbeat() throws SQLException {
    if (closed) {
      return;
    }
    long started = System.nanoTime();
    try (Connection c = store.dataSource().getConnection()) {
      try (PreparedStatement beat =
          c.prepareStatement(
              "INSERT INTO memstack_outbox_host (host, seen_at) VALUES (?, now())"
                  + " ON CONFLICT (host) DO UPDATE SET seen_at = now()")) {
        beat.setString(1, host);
        beat.executeUpdate();
      }
      // only the leases this host's lanes know they hold: a row that names this host but that no
      // lane holds (a take whose answer was lost) is left to expire
      Map<String, Held> renewing = Map.copyOf(held);
      Map<String, Long> renewed = new HashMap<>();
      try (PreparedStatement renew =
          c.prepareStatement(
              "UPDATE memstack_outbox_lane SET lease_until = now() + ? * interval '1 millisecond'"
                  + " WHERE holder = ? AND lane = ANY (?) RETURNING lane, epoch")) {
        renew.setLong(1, leaseTtl.toMillis());
        renew.setString(2, host);
        renew.setArray(3, c.createArrayOf("text", renewing.keySet().toArray()));
        try (ResultSet rows = renew.executeQuery()) {
          while (rows.next()) {
            renewed.put(rows.getString(1), rows.getLong(2));
          }
        }
      }
      long until = started + leaseTtl.toNanos();
      for (Map.Entry<String, Held> lease : renewing.entrySet()) {
        Held was = lease.getValue();
        Long epoch = renewed.get(lease.getKey());
        if (epoch == null || epoch != was.epoch()) {
          if (held.remove(lease.getKey(), was)) {
            log.warn("Host {} lost the outbox lane {} (its lease expired)", host, lease.getKey());
          }
        } else {
          held.replace(lease.getKey(), was, new Held(epoch, until));
        }
      }
      try (PreparedStatement forget =
          c.prepareStatement(
              "DELETE FROM memstack_outbox_host WHERE seen_at < now() - interval '1 day'")) {
        forget.executeUpdate(); // hosts gone long ago
      }
      try (PreparedStatement live =
          c.prepareStatement(
              "SELECT count(*) FROM memstack_outbox_host"
                  + " WHERE seen_at > now() - ? * interval '1 millisecond'")) {
        live.setLong(1, leaseTtl.toMillis());
        try (ResultSet rows = live.executeQuery()) {
          rows.next();
          liveHosts = Math.max(1, rows.getInt(1));
        }
      }
    }
  }

  /** This host's id, as lease holders are named. */
  String host() {
    return host;
  }

  /** Gives every lease of this host up and removes its host row; rows stay for the next host. */
  void close() {
    closed = true;
    held.clear();
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement release =
            c.prepareStatement(
                "UPDATE memstack_outbox_lane SET holder = NULL, lease_until = NULL WHERE holder ="
                    + " ?");
        PreparedStatement leave =
            c.prepareStatement("DELETE FROM memstack_outbox_host WHERE host = ?")) {
      release.setString(1, host);
      release.executeUpdate();
      leave.setString(1, host);
      leave.executeUpdate();
    } catch (SQLException | RuntimeException e) {
      log.warn("Could not give the outbox leases of host {} up: {}", host, e.getMessage());
    }
  }

  /** Whether {@link #close()} was called. */
  boolean closed() {
    return closed;
  }
}
