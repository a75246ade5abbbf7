// One class on purpose (~1000 lines, most of it SQL): every statement on the outbox tables sits
// next to the others, so that the lease, ordering and erasure rules can be checked in one place.
package dev.memstack.outbox.postgres;

import dev.memstack.outbox.journal.CursorStore.ParkedErase;
import dev.memstack.outbox.journal.ErasedRecordException;
import dev.memstack.outbox.journal.Journal;
import dev.memstack.outbox.journal.JournalRecord;
import dev.memstack.outbox.journal.SharedJournal;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link SharedJournal} of {@code memstack.outbox.type=postgres}: the turn outbox on the shared
 * database ({@code memstack.shared.*}), so that every host of a deployment accepts into and
 * delivers from one outbox. Tables (schema component {@code outbox}, applied once across hosts by
 * {@link OutboxDatabase#migrate}): {@code memstack_outbox_record} (one row per turn or erasure: its
 * position, shard, kind, owner, recipients, acceptance time and encoded body), {@code
 * memstack_outbox_lane} (one row per provider and shard: cursor, parked erasures, what the holder
 * was delivering, lease holder, epoch and expiry), {@code memstack_outbox_host} (one heartbeat row
 * per running host) and {@code memstack_outbox_setting} (the shard count the outbox was created
 * with; a host configured with another one does not start).
 *
 * <p><b>Ordering.</b> Positions come from one sequence, but a bigserial taken in one transaction
 * may commit after a higher one, and a lane reading "position at or after my cursor" would then
 * skip it for good. So an append takes {@code pg_advisory_xact_lock} on its shard <i>before</i> it
 * takes its position, and holds it to its commit: within a shard, positions are handed out and
 * committed in the same order, and a lane that sees position {@code p} of its shard has seen every
 * earlier one. Appends of different shards (different owners, mostly) do not wait for each other;
 * appends of one owner are ordered anyway. The alternative, a per-shard counter row, serializes the
 * same way but makes positions per shard, which the engine's single position space does not have.
 * An append commits before it returns: {@link #awaitDurable} has nothing to wait for.
 *
 * <p><b>Leases.</b> A lane is delivered by the host that holds its row's lease ({@code holder},
 * {@code lease_until} on the database's clock, so host clocks do not matter). A heartbeat thread
 * renews every lease this host holds and its host row every third of {@code
 * memstack.outbox.lease-ttl}; a host that dies (kill -9: its connections drop, nothing renews)
 * loses its leases when they expire, and any other host's lane takes them on its next try (every
 * second). A host takes a provider's lane only while it holds fewer than {@code ceil(shards / live
 * hosts)} of that provider's lanes, and gives lanes up past that share, so leases spread over the
 * live hosts (live: heartbeat within the lease ttl), and every host delivers, and so embeds, its
 * share. Taking a lane bumps its epoch; cursor saves are guarded by holder and epoch, so a host
 * that lost a lane cannot move its cursor.
 *
 * <p><b>Failover.</b> Before each delivery the lane saves its cursor and the end of what it is
 * about to deliver ({@link #claim}); a host that takes the lane over resumes at the cursor and
 * counts the records below that end as redeliveries (at least once; providers store a turn once by
 * its id).
 *
 * <p><b>Erasure.</b> {@link #expunge} deletes the rows of the owner's turns: no row holds what the
 * owner said. The erasure record (owner key and recipients only) stays until every lane of its
 * shard is past it. <b>Backpressure.</b> Pending counts per provider and the table's bytes are
 * computed across hosts once a second ({@link #state()}, {@link #bytes()}); {@code max-pending} and
 * {@code max-journal-size} (the bytes of the records' bodies) bound them as for the local journals.
 */
public final class PostgresJournal implements SharedJournal {

  private static final Logger log = LoggerFactory.getLogger(PostgresJournal.class);

  /** First key of the outbox's advisory locks (any constant: every host uses the same one). */
  private static final int LOCK_CLASS = 0x6d6f7574; // "mout"

  private static final String CHANNEL = "memstack_outbox";
  private static final short TURN = 1;
  private static final short ERASE = 2;
  private static final String LANE_STATE =
      "SELECT next, parked_owners, parked_at, attempted_before FROM memstack_outbox_lane WHERE"
          + " lane = ?";

  /** The schema steps of component {@code outbox}. */
  public static final List<String> SCHEMA =
      List.of(
          """
          CREATE TABLE memstack_outbox_setting (name text PRIMARY KEY, value text NOT NULL);
          CREATE SEQUENCE memstack_outbox_position MINVALUE 0 START 0;
          CREATE TABLE memstack_outbox_record (
            position bigint PRIMARY KEY,
            shard int NOT NULL,
            kind smallint NOT NULL,
            owner text NOT NULL,
            recipients text[] NOT NULL,
            accepted_at bigint NOT NULL,
            body bytea NOT NULL);
          CREATE INDEX memstack_outbox_record_shard ON memstack_outbox_record (shard, position);
          CREATE INDEX memstack_outbox_record_owner ON memstack_outbox_record (owner, position);
          CREATE TABLE memstack_outbox_lane (
            lane text PRIMARY KEY,
            provider text NOT NULL,
            shard int NOT NULL,
            next bigint NOT NULL DEFAULT 0,
            parked_owners text[] NOT NULL DEFAULT '{}',
            parked_at bigint[] NOT NULL DEFAULT '{}',
            attempted_before bigint NOT NULL DEFAULT 0,
            holder text,
            epoch bigint NOT NULL DEFAULT 0,
            lease_until timestamptz);
          CREATE TABLE memstack_outbox_host (
            host text PRIMARY KEY,
            seen_at timestamptz NOT NULL,
            started_at timestamptz NOT NULL DEFAULT now());
          """);

  private final OutboxDatabase store;
  private final int shards;
  private final Duration leaseTtl;
  private final String host;
  private final ScheduledExecutorService scheduler;
  private final Thread listener;
  private final List<IntConsumer> appendListeners = new CopyOnWriteArrayList<>();

  /** Providers whose lanes exist (this host created or saw them). */
  private final Set<String> knownProviders = ConcurrentHashMap.newKeySet();

  /** Lanes this host holds: their epoch and until when (System.nanoTime) it may assume so. */
  private final Map<String, Held> held = new ConcurrentHashMap<>();

  private final AtomicLong durable = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private volatile int segments;
  private volatile int liveHosts = 1;
  private volatile State state;
  private volatile boolean closed;

  private record Held(long epoch, long untilNanos) {}

  private PostgresJournal(OutboxDatabase store, int shards, Duration leaseTtl) {
    this.store = store;
    this.shards = shards;
    this.leaseTtl = leaseTtl;
    this.host = hostName() + "/" + UUID.randomUUID().toString().substring(0, 8);
    this.state = new State(host, 1, Map.of(), Map.of());
    this.scheduler =
        Executors.newScheduledThreadPool(
            2,
            task -> {
              Thread thread = new Thread(task, "memstack-outbox-lease");
              thread.setDaemon(true);
              return thread;
            });
    this.listener = new Thread(this::listen, "memstack-outbox-listen");
    listener.setDaemon(true);
  }

  /**
   * Opens the outbox on the shared database: applies its schema steps, checks the shard count,
   * registers this host and starts the heartbeat and the notification listener.
   *
   * @throws IllegalStateException when the database cannot be reached or was created with another
   *     shard count (the message names {@code memstack.outbox.shards})
   */
  public static PostgresJournal open(OutboxDatabase store, int shards, Duration leaseTtl) {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(leaseTtl, "leaseTtl");
    PostgresJournal journal = new PostgresJournal(store, shards, leaseTtl);
    try {
      store.migrate("outbox", SCHEMA);
      journal.checkShards();
      journal.durable.set(journal.queryNextPosition());
      journal.heartbeat();
      journal.refresh();
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot open the turn outbox on the shared database "
              + store.describe()
              + " (memstack.shared.jdbc-url): "
              + e.getMessage(),
          e);
    }
    long beat = Math.max(100, leaseTtl.toMillis() / 3);
    journal.scheduler.scheduleWithFixedDelay(journal::heartbeatQuietly, beat, beat, MILLIS);
    journal.scheduler.scheduleWithFixedDelay(journal::refreshQuietly, 1000, 1000, MILLIS);
    journal.listener.start();
    return journal;
  }

  private static final TimeUnit MILLIS = TimeUnit.MILLISECONDS;

  private void checkShards() throws SQLException {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO memstack_outbox_setting (name, value) VALUES ('shards', ?)"
                    + " ON CONFLICT (name) DO NOTHING");
        PreparedStatement query =
            c.prepareStatement("SELECT value FROM memstack_outbox_setting WHERE name = 'shards'")) {
      insert.setString(1, Integer.toString(shards));
      insert.executeUpdate();
      try (ResultSet rows = query.executeQuery()) {
        rows.next();
        int stored = Integer.parseInt(rows.getString(1));
        if (stored != shards) {
          throw new IllegalStateException(
              "memstack.outbox.shards is "
                  + shards
                  + " but the shared turn outbox at "
                  + store.describe()
                  + " was created with "
                  + stored
                  + " shards; every host must use the same count");
        }
      }
    }
  }

  // ---- Journal ----

  @Override
  public boolean persistent() {
    return true;
  }

  @Override
  public String describe() {
    return "postgres " + store.describe();
  }

  @Override
  public Map<String, Cursor> cursors() {
    Map<String, Cursor> cursors = new LinkedHashMap<>();
    try (Connection c = store.dataSource().getConnection();
        Statement statement = c.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT lane, provider, next, parked_owners, parked_at FROM memstack_outbox_lane"
                    + " ORDER BY lane")) {
      while (rows.next()) {
        knownProviders.add(rows.getString(2));
        cursors.put(rows.getString(1), new Cursor(rows.getLong(3), parked(rows, 4)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the outbox lanes: " + e.getMessage(), e);
    }
    return cursors;
  }

  /** Hands every record's index fields to {@code sink}, in position order. */
  @Override
  public void replay(Consumer<Entry> sink) throws IOException {
    try (Connection c = store.dataSource().getConnection()) {
      c.setAutoCommit(false); // lets the driver stream the rows
      try (PreparedStatement query =
          c.prepareStatement(
              "SELECT position, kind, accepted_at, recipients, owner FROM memstack_outbox_record"
                  + " ORDER BY position")) {
        query.setFetchSize(1000);
        try (ResultSet rows = query.executeQuery()) {
          while (rows.next()) {
            sink.accept(entry(rows));
          }
        }
      }
      c.commit();
    } catch (SQLException e) {
      throw new IOException("cannot read the outbox records: " + e.getMessage(), e);
    }
  }

  @Override
  public Entry append(JournalRecord.Header header, byte[] body) throws IOException {
    checkOpen();
    int shard = SharedJournal.shardOf(header.owner(), shards);
    try (Connection c = store.dataSource().getConnection()) {
      c.setAutoCommit(false);
      try {
        for (String provider : header.recipients()) {
          if (!knownProviders.contains(provider)) {
            ensureLanes(c, provider);
          }
        }
        long position;
        try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(?, ?)")) {
          lock.setInt(1, LOCK_CLASS);
          lock.setInt(2, shard);
          lock.execute();
        }
        try (PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO memstack_outbox_record (position, shard, kind, owner, recipients,"
                    + " accepted_at, body) VALUES (nextval('memstack_outbox_position'), ?, ?, ?,"
                    + " ?, ?, ?) RETURNING position")) {
          insert.setInt(1, shard);
          insert.setShort(2, header.kind() == JournalRecord.Kind.TURN ? TURN : ERASE);
          insert.setString(3, header.owner());
          insert.setArray(4, c.createArrayOf("text", header.recipients().toArray()));
          insert.setLong(5, header.acceptedAtMillis());
          insert.setBytes(6, body);
          try (ResultSet rows = insert.executeQuery()) {
            rows.next();
            position = rows.getLong(1);
          }
        }
        try (PreparedStatement notify = c.prepareStatement("SELECT pg_notify(?, ?)")) {
          notify.setString(1, CHANNEL);
          notify.setString(2, Integer.toString(shard));
          notify.execute();
        }
        c.commit();
        knownProviders.addAll(header.recipients());
        durable.accumulateAndGet(position + 1, Math::max);
        bytes.addAndGet(body.length + Journal.RECORD_OVERHEAD_BYTES);
        return new Entry(position, header, null);
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c);
        throw e;
      }
    } catch (SQLException e) {
      throw new IOException(
          "cannot write to the shared turn outbox at " + store.describe() + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * Creates the lanes of a provider not seen before, each with its cursor at the sequence's last
   * value: every record addressed to the provider is appended after its lanes exist (in the same
   * transaction), so it gets a higher position.
   */
  private void ensureLanes(Connection c, String provider) throws SQLException {
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO memstack_outbox_lane (lane, provider, shard, next)"
                + " SELECT ? || '#' || s, ?, s, (SELECT last_value FROM memstack_outbox_position)"
                + " FROM generate_series(0, ? - 1) s ON CONFLICT (lane) DO NOTHING")) {
      insert.setString(1, provider);
      insert.setString(2, provider);
      insert.setInt(3, shards);
      insert.executeUpdate();
    }
  }

  @Override
  public void awaitDurable(long position) {
    // an append commits before it returns
  }

  /** Every record this host appended before it is committed (as are those of other hosts). */
  @Override
  public long durablePosition() {
    return durable.get();
  }

  @Override
  public long nextPosition() {
    try {
      long next = queryNextPosition();
      durable.accumulateAndGet(next, Math::max);
      return next;
    } catch (SQLException e) {
      return durable.get();
    }
  }

  private long queryNextPosition() throws SQLException {
    try (Connection c = store.dataSource().getConnection();
        Statement statement = c.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END"
                    + " FROM memstack_outbox_position")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /** Reads the body; a row that is gone was erased with its owner (or is past every lane). */
  @Override
  public JournalRecord read(Entry entry) throws IOException {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement query =
            c.prepareStatement("SELECT body FROM memstack_outbox_record WHERE position = ?")) {
      query.setLong(1, entry.position());
      try (ResultSet rows = query.executeQuery()) {
        if (!rows.next()) {
          throw new ErasedRecordException(entry.position());
        }
        return JournalRecord.decode(ByteBuffer.wrap(rows.getBytes(1)));
      }
    } catch (SQLException e) {
      throw new IOException("cannot read the shared turn outbox: " + e.getMessage(), e);
    }
  }

  @Override
  public int expunge(String owner, long before) throws IOException {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement delete =
            c.prepareStatement(
                "DELETE FROM memstack_outbox_record WHERE owner = ? AND kind = ? AND position < ?")) {
      delete.setString(1, owner);
      delete.setShort(2, TURN);
      delete.setLong(3, before);
      int erased = delete.executeUpdate();
      if (erased > 0) {
        refreshBytesQuietly();
      }
      return erased;
    } catch (SQLException e) {
      throw new IOException("cannot erase from the shared turn outbox: " + e.getMessage(), e);
    }
  }

  /**
   * Saves a lane's cursor: guarded by this host's lease when it holds the lane, else only while
   * nobody holds it.
   *
   * @throws IOException when another host holds the lane (or this host lost it)
   */
  @Override
  public void saveCursor(String lane, Cursor cursor) throws IOException {
    checkOpen();
    Held lease = held.get(lane);
    try (Connection c = store.dataSource().getConnection()) {
      int updated;
      if (lease != null) {
        try (PreparedStatement update =
            c.prepareStatement(
                "UPDATE memstack_outbox_lane SET next = ?, parked_owners = ?, parked_at = ?"
                    + " WHERE lane = ? AND holder = ? AND epoch = ?")) {
          bindCursor(c, update, cursor);
          update.setString(4, lane);
          update.setString(5, host);
          update.setLong(6, lease.epoch());
          updated = update.executeUpdate();
        }
      } else {
        try (PreparedStatement upsert =
            c.prepareStatement(
                "INSERT INTO memstack_outbox_lane AS l (next, parked_owners, parked_at, lane,"
                    + " provider, shard) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (lane) DO UPDATE"
                    + " SET next = EXCLUDED.next, parked_owners = EXCLUDED.parked_owners,"
                    + " parked_at = EXCLUDED.parked_at"
                    + " WHERE l.holder IS NULL OR l.lease_until < now()")) {
          bindCursor(c, upsert, cursor);
          upsert.setString(4, lane);
          upsert.setString(5, SharedJournal.providerOf(lane));
          upsert.setInt(6, SharedJournal.shardOfLane(lane));
          updated = upsert.executeUpdate();
        }
      }
      if (updated == 0) {
        held.remove(lane);
        throw new IOException("the outbox lane " + lane + " is leased by another host");
      }
    } catch (SQLException e) {
      throw new IOException("cannot save the outbox cursor of " + lane + ": " + e.getMessage(), e);
    }
  }

  /** Nothing is sealed: erasures waiting for an absent provider go to its lane row at once. */
  @Override
  public long sealedBefore() {
    return Long.MAX_VALUE;
  }

  /** Deletes the records before {@code position}, whatever the lanes' cursors. */
  @Override
  public int compact(long position) {
    return delete(
        "DELETE FROM memstack_outbox_record WHERE position < ?",
        statement -> statement.setLong(1, position));
  }

  @Override
  public int compactDone() {
    return delete(
        "DELETE FROM memstack_outbox_record r USING (SELECT shard, min(next) AS done FROM"
            + " memstack_outbox_lane GROUP BY shard) l WHERE r.shard = l.shard AND r.position <"
            + " l.done",
        statement -> {});
  }

  private interface Binder {
    void bind(PreparedStatement statement) throws SQLException;
  }

  private int delete(String sql, Binder binder) {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement delete = c.prepareStatement(sql)) {
      binder.bind(delete);
      int deleted = delete.executeUpdate();
      if (deleted > 0) {
        refreshBytesQuietly();
      }
      return deleted;
    } catch (SQLException e) {
      log.warn("Could not compact the shared turn outbox: {}", e.getMessage());
      return 0;
    }
  }

  /** The bytes of the records' bodies (and a frame's overhead each), as of the last refresh. */
  @Override
  public long bytes() {
    return bytes.get();
  }

  /** Records held, as of the last refresh (the database has no segment files). */
  @Override
  public int segments() {
    return segments;
  }

  /**
   * Takes or renews the lane's lease: renewing is local (the heartbeat renews held leases); taking
   * one succeeds when nobody holds it (or its lease expired) and this host is below its share of
   * the provider's lanes.
   */
  @Override
  public boolean tryLease(String lane) {
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
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement take =
            c.prepareStatement(
                "INSERT INTO memstack_outbox_lane AS l (lane, provider, shard, holder, epoch,"
                    + " lease_until) VALUES (?, ?, ?, ?, 1, now() + ? * interval '1 millisecond')"
                    + " ON CONFLICT (lane) DO UPDATE SET holder = EXCLUDED.holder,"
                    + " epoch = l.epoch + 1, lease_until = EXCLUDED.lease_until"
                    + " WHERE l.holder IS NULL OR l.holder = EXCLUDED.holder"
                    + " OR l.lease_until < now() RETURNING epoch")) {
      take.setString(1, lane);
      take.setString(2, provider);
      take.setInt(3, SharedJournal.shardOfLane(lane));
      take.setString(4, host);
      take.setLong(5, leaseTtl.toMillis());
      try (ResultSet rows = take.executeQuery()) {
        if (!rows.next()) {
          return false;
        }
        held.put(lane, new Held(rows.getLong(1), started + leaseTtl.toNanos()));
        log.debug("Host {} took outbox lane {}", host, lane);
        return true;
      }
    } catch (SQLException e) {
      log.debug("Could not take outbox lane {}: {}", lane, e.getMessage());
      return false;
    }
  }

  // ---- SharedJournal ----

  @Override
  public int shards() {
    return shards;
  }

  @Override
  public String hostId() {
    return host;
  }

  @Override
  public Taken taken(String lane) throws IOException {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement query = c.prepareStatement(LANE_STATE)) {
      query.setString(1, lane);
      try (ResultSet rows = query.executeQuery()) {
        if (!rows.next()) {
          return new Taken(new Cursor(0, List.of()), 0);
        }
        return new Taken(new Cursor(rows.getLong(1), parked(rows, 2)), rows.getLong(4));
      }
    } catch (SQLException e) {
      throw new IOException("cannot read the outbox lane " + lane + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Scan scan(String lane, long from, int limit) throws IOException {
    String provider = SharedJournal.providerOf(lane);
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement query =
            c.prepareStatement(
                "SELECT position, kind, accepted_at, recipients, owner FROM memstack_outbox_record"
                    + " WHERE shard = ? AND position >= ? ORDER BY position LIMIT ?")) {
      query.setInt(1, SharedJournal.shardOfLane(lane));
      query.setLong(2, from);
      query.setInt(3, limit);
      List<Entry> entries = new ArrayList<>();
      long scannedTo = from;
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          Entry entry = entry(rows);
          scannedTo = entry.position() + 1;
          if (entry.header().recipients().contains(provider)) {
            entries.add(entry);
          }
        }
      }
      return new Scan(entries, scannedTo);
    } catch (SQLException e) {
      throw new IOException("cannot read the shared turn outbox: " + e.getMessage(), e);
    }
  }

  @Override
  public boolean claim(String lane, Cursor done, long attemptedBefore) throws IOException {
    Held lease = held.get(lane);
    if (lease == null || closed) {
      return false;
    }
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement update =
            c.prepareStatement(
                "UPDATE memstack_outbox_lane SET next = ?, parked_owners = ?, parked_at = ?,"
                    + " attempted_before = greatest(attempted_before, ?)"
                    + " WHERE lane = ? AND holder = ? AND epoch = ?")) {
      bindCursor(c, update, done);
      update.setLong(4, attemptedBefore);
      update.setString(5, lane);
      update.setString(6, host);
      update.setLong(7, lease.epoch());
      if (update.executeUpdate() == 1) {
        return true;
      }
      held.remove(lane);
      return false;
    } catch (SQLException e) {
      throw new IOException("cannot save the outbox cursor of " + lane + ": " + e.getMessage(), e);
    }
  }

  @Override
  public boolean overShare(String lane) {
    return held.containsKey(lane) && heldOf(SharedJournal.providerOf(lane)) > share();
  }

  @Override
  public void release(String lane) {
    Held lease = held.remove(lane);
    if (lease == null) {
      return;
    }
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement update =
            c.prepareStatement(
                "UPDATE memstack_outbox_lane SET holder = NULL, lease_until = NULL"
                    + " WHERE lane = ? AND holder = ? AND epoch = ?")) {
      update.setString(1, lane);
      update.setString(2, host);
      update.setLong(3, lease.epoch());
      update.executeUpdate();
      log.debug("Host {} gave outbox lane {} up", host, lane);
    } catch (SQLException e) {
      log.debug("Could not give outbox lane {} up: {}", lane, e.getMessage());
    }
  }

  @Override
  public OptionalLong savedNext(String lane) throws IOException {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement query = c.prepareStatement(LANE_STATE)) {
      query.setString(1, lane);
      try (ResultSet rows = query.executeQuery()) {
        return rows.next() ? OptionalLong.of(rows.getLong(1)) : OptionalLong.empty();
      }
    } catch (SQLException e) {
      throw new IOException("cannot read the outbox lane " + lane + ": " + e.getMessage(), e);
    }
  }

  @Override
  public Map<String, Integer> undone(String owner, long before) throws IOException {
    Map<String, Integer> undone = new HashMap<>();
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement query =
            c.prepareStatement(
                "SELECT l.provider, count(*) FROM memstack_outbox_record r JOIN"
                    + " memstack_outbox_lane l ON l.shard = r.shard AND l.lane = l.provider ||"
                    + " '#' || l.shard AND l.provider = ANY (r.recipients) AND r.position >="
                    + " l.next WHERE r.owner = ? AND r.kind = ? AND r.position < ? GROUP BY"
                    + " l.provider")) {
      query.setString(1, owner);
      query.setShort(2, TURN);
      query.setLong(3, before);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          undone.put(rows.getString(1), rows.getInt(2));
        }
      }
      return undone;
    } catch (SQLException e) {
      throw new IOException("cannot count an owner's pending turns: " + e.getMessage(), e);
    }
  }

  @Override
  public State state() {
    return state;
  }

  @Override
  public void onAppend(IntConsumer shard) {
    appendListeners.add(Objects.requireNonNull(shard, "shard"));
  }

  /** Stops the heartbeat and the listener and gives every lease up; rows stay for the next host. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    scheduler.shutdownNow();
    listener.interrupt();
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

  // ---- heartbeat, refresh, notifications ----

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

  private void heartbeatQuietly() {
    try {
      heartbeat();
    } catch (SQLException | RuntimeException e) {
      if (!closed) {
        log.warn("Outbox heartbeat of host {} failed: {}", host, e.getMessage());
      }
    }
  }

  /** Renews this host's row and every lease it holds; forgets the ones it lost. */
  private void heartbeat() throws SQLException {
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

  private void refreshQuietly() {
    try {
      refresh();
    } catch (SQLException | RuntimeException e) {
      if (!closed) {
        log.debug("Could not refresh the shared outbox state: {}", e.getMessage());
      }
    }
  }

  /** Reads the backlog per provider, the lease holders and the table's bytes. */
  private void refresh() throws SQLException {
    Map<String, long[]> pending = new LinkedHashMap<>();
    Map<String, String> holders = new LinkedHashMap<>();
    try (Connection c = store.dataSource().getConnection();
        Statement statement = c.createStatement()) {
      try (ResultSet rows =
          statement.executeQuery(
              "SELECT l.provider, count(*) FILTER (WHERE r.kind = "
                  + TURN
                  + "), count(*) FILTER (WHERE r.kind = "
                  + ERASE
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
    state = new State(host, liveHosts, Map.copyOf(byProvider), Map.copyOf(holders));
  }

  private void refreshBytesQuietly() {
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

  /** Waits for NOTIFY on the outbox channel and wakes the lanes of the shard appended to. */
  private void listen() {
    while (!closed) {
      try (Connection c = store.dataSource().getConnection()) {
        try (Statement statement = c.createStatement()) {
          statement.execute("LISTEN " + CHANNEL);
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        while (!closed) {
          PGNotification[] notifications = pg.getNotifications(500);
          if (notifications == null) {
            continue;
          }
          boolean[] woken = new boolean[shards];
          for (PGNotification notification : notifications) {
            try {
              int shard = Integer.parseInt(notification.getParameter());
              if (shard >= 0 && shard < shards && !woken[shard]) {
                woken[shard] = true;
                appendListeners.forEach(l -> l.accept(shard));
              }
            } catch (NumberFormatException e) {
              // not ours
            }
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (closed) {
          return;
        }
        log.debug("Outbox notification listener: {}; listening again in 1 s", e.getMessage());
        try {
          Thread.sleep(1000);
        } catch (InterruptedException interrupted) {
          return;
        }
      }
    }
  }

  // ---- helpers ----

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the shared turn outbox is closed");
    }
  }

  private static Entry entry(ResultSet rows) throws SQLException {
    long position = rows.getLong(1);
    JournalRecord.Kind kind =
        rows.getShort(2) == TURN ? JournalRecord.Kind.TURN : JournalRecord.Kind.ERASE;
    Array recipients = rows.getArray(4);
    List<String> ids = Arrays.asList((String[]) recipients.getArray());
    JournalRecord.Header header =
        new JournalRecord.Header(kind, rows.getLong(3), List.copyOf(ids), rows.getString(5));
    return new Entry(position, header, null);
  }

  private static List<ParkedErase> parked(ResultSet rows, int column) throws SQLException {
    String[] owners = (String[]) rows.getArray(column).getArray();
    Long[] at = (Long[]) rows.getArray(column + 1).getArray();
    List<ParkedErase> parked = new ArrayList<>(owners.length);
    for (int i = 0; i < owners.length; i++) {
      parked.add(new ParkedErase(owners[i], at[i]));
    }
    return parked;
  }

  private static void bindCursor(Connection c, PreparedStatement statement, Cursor cursor)
      throws SQLException {
    statement.setLong(1, cursor.next());
    statement.setArray(
        2, c.createArrayOf("text", cursor.parked().stream().map(ParkedErase::owner).toArray()));
    statement.setArray(
        3,
        c.createArrayOf(
            "bigint", cursor.parked().stream().map(ParkedErase::acceptedAtMillis).toArray()));
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      // the connection is broken; the pool drops it
    }
  }

  private static String hostName() {
    String name = ManagementFactory.getRuntimeMXBean().getName(); // pid@host
    return name.length() > 60 ? name.substring(0, 60) : name;
  }
}
