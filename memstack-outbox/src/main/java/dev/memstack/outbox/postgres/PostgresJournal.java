// One class on purpose (~1000 lines, most of it SQL): every statement on the outbox tables sits
// next to the others, so that the lease, ordering and erasure rules can be checked in one place.
package dev.memstack.outbox.postgres;

import dev.memstack.outbox.journal.DeadLetterStore;
import dev.memstack.outbox.journal.ErasedRecordException;
import dev.memstack.outbox.journal.JournalRecord;
import dev.memstack.outbox.journal.SharedJournal;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
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

  private static final String LANE_STATE =
      "SELECT next, parked_owners, parked_at, attempted_before FROM memstack_outbox_lane WHERE"
          + " lane = ?";

  private final OutboxDatabase store;
  private final int shards;
  private final String host;
  private final PostgresLeases leases;
  private final PostgresBacklog backlog;
  private final PostgresNotifications notifications;
  private final PostgresDeadLetters deadLetters;
  private final ScheduledExecutorService scheduler;

  /** Providers whose lanes exist (this host created or saw them). */
  private final Set<String> knownProviders = ConcurrentHashMap.newKeySet();

  private final AtomicLong durable = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();

  private PostgresJournal(OutboxDatabase store, int shards, Duration leaseTtl) {
    this.store = store;
    this.shards = shards;
    this.host = hostName() + "/" + UUID.randomUUID().toString().substring(0, 8);
    this.leases = new PostgresLeases(store, shards, leaseTtl, host);
    this.backlog = new PostgresBacklog(store, leases);
    this.notifications = new PostgresNotifications(store, shards);
    this.deadLetters = new PostgresDeadLetters(store);
    this.scheduler =
        Executors.newScheduledThreadPool(
            2,
            task -> {
              Thread thread = new Thread(task, "memstack-outbox-lease");
              thread.setDaemon(true);
              return thread;
            });
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
      store.migrate("outbox", PostgresOutboxSchema.STEPS);
      PostgresOutboxSchema.checkShards(store, shards);
      journal.durable.set(journal.queryNextPosition());
      journal.leases.heartbeat();
      journal.backlog.refresh();
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot open the turn outbox on the shared database "
              + store.describe()
              + " (memstack.shared.jdbc-url): "
              + e.getMessage(),
          e);
    }
    long beat = Math.max(100, leaseTtl.toMillis() / 3);
    journal.scheduler.scheduleWithFixedDelay(journal.leases::heartbeatQuietly, beat, beat, MILLIS);
    journal.scheduler.scheduleWithFixedDelay(journal.backlog::refreshQuietly, 1000, 1000, MILLIS);
    journal.notifications.start();
    return journal;
  }

  private static final TimeUnit MILLIS = TimeUnit.MILLISECONDS;

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
    try {
      PostgresRows.query(
          store,
          "SELECT lane, provider, next, parked_owners, parked_at FROM memstack_outbox_lane"
              + " ORDER BY lane",
          statement -> {},
          rows -> {
            while (rows.next()) {
              knownProviders.add(rows.getString(2));
              cursors.put(
                  rows.getString(1), new Cursor(rows.getLong(3), PostgresRows.parked(rows, 4)));
            }
            return cursors;
          });
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
            sink.accept(PostgresRows.entry(rows));
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
        PostgresRows.execute(c, "SELECT pg_advisory_xact_lock(?, ?)", LOCK_CLASS, shard);
        try (PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO memstack_outbox_record (position, shard, kind, owner, recipients,"
                    + " accepted_at, body) VALUES (nextval('memstack_outbox_position'), ?, ?, ?,"
                    + " ?, ?, ?) RETURNING position")) {
          insert.setInt(1, shard);
          insert.setShort(2, PostgresRows.kind(header.kind()));
          insert.setString(3, header.owner());
          insert.setArray(4, c.createArrayOf("text", header.recipients().toArray()));
          insert.setLong(5, header.acceptedAtMillis());
          insert.setBytes(6, body);
          try (ResultSet rows = insert.executeQuery()) {
            rows.next();
            position = rows.getLong(1);
          }
        }
        PostgresRows.execute(
            c, "SELECT pg_notify(?, ?)", PostgresNotifications.CHANNEL, Integer.toString(shard));
        c.commit();
        knownProviders.addAll(header.recipients());
        durable.accumulateAndGet(position + 1, Math::max);
        backlog.appended(body.length);
        return new Entry(position, header, null);
      } catch (SQLException | RuntimeException e) {
        PostgresRows.rollbackQuietly(c);
        throw e;
      }
    } catch (SQLException | RuntimeException e) {
      // a pool closed under the call (the host is stopping) fails with runtime errors too
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
    PostgresRows.execute(
        c,
        "INSERT INTO memstack_outbox_lane (lane, provider, shard, next)"
            + " SELECT ? || '#' || s, ?, s, (SELECT last_value FROM memstack_outbox_position)"
            + " FROM generate_series(0, ? - 1) s ON CONFLICT (lane) DO NOTHING",
        provider,
        provider,
        shards);
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
    return PostgresRows.query(
        store,
        "SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END"
            + " FROM memstack_outbox_position",
        statement -> {},
        rows -> rows.next() ? rows.getLong(1) : 0);
  }

  /** Reads the body; a row that is gone was erased with its owner (or is past every lane). */
  @Override
  public JournalRecord read(Entry entry) throws IOException {
    byte[] body;
    try {
      body =
          PostgresRows.query(
              store,
              "SELECT body FROM memstack_outbox_record WHERE position = ?",
              query -> query.setLong(1, entry.position()),
              rows -> rows.next() ? rows.getBytes(1) : null);
    } catch (SQLException e) {
      throw new IOException("cannot read the shared turn outbox: " + e.getMessage(), e);
    }
    if (body == null) {
      throw new ErasedRecordException(entry.position());
    }
    return JournalRecord.decode(ByteBuffer.wrap(body));
  }

  @Override
  public int expunge(String owner, long before) throws IOException {
    try {
      return delete(
          "DELETE FROM memstack_outbox_record WHERE owner = ? AND kind = ? AND position < ?",
          delete -> {
            delete.setString(1, owner);
            delete.setShort(2, PostgresRows.TURN);
            delete.setLong(3, before);
          });
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
    leases.saveCursor(lane, cursor);
  }

  /** Nothing is sealed: erasures waiting for an absent provider go to its lane row at once. */
  @Override
  public DeadLetterStore deadLetters() {
    return deadLetters;
  }

  @Override
  public long sealedBefore() {
    return Long.MAX_VALUE;
  }

  /** Deletes the records before {@code position}, whatever the lanes' cursors. */
  @Override
  public int compact(long position) {
    return compact(
        "DELETE FROM memstack_outbox_record WHERE position < ?",
        statement -> statement.setLong(1, position));
  }

  @Override
  public int compactDone() {
    return compact(
        "DELETE FROM memstack_outbox_record r USING (SELECT shard, min(next) AS done FROM"
            + " memstack_outbox_lane GROUP BY shard) l WHERE r.shard = l.shard AND r.position <"
            + " l.done",
        statement -> {});
  }

  private int compact(String sql, PostgresRows.Binder binder) {
    try {
      return delete(sql, binder);
    } catch (SQLException e) {
      log.warn("Could not compact the shared turn outbox: {}", e.getMessage());
      return 0;
    }
  }

  /** Deletes records; the table's bytes are measured again when any went. */
  private int delete(String sql, PostgresRows.Binder binder) throws SQLException {
    int deleted = PostgresRows.update(store, sql, binder);
    if (deleted > 0) {
      backlog.refreshBytesQuietly();
    }
    return deleted;
  }

  /** The bytes of the records' bodies (and a frame's overhead each), as of the last refresh. */
  @Override
  public long bytes() {
    return backlog.bytes();
  }

  /** Records held, as of the last refresh (the database has no segment files). */
  @Override
  public int segments() {
    return backlog.segments();
  }

  /**
   * Takes or renews the lane's lease: renewing is local (the heartbeat renews held leases); taking
   * one succeeds when nobody holds it (or its lease expired) and this host is below its share of
   * the provider's lanes.
   */
  @Override
  public boolean tryLease(String lane) {
    return !closed.get() && leases.tryLease(lane);
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
    try {
      return laneState(
          lane,
          rows ->
              rows.next()
                  ? new Taken(
                      new Cursor(rows.getLong(1), PostgresRows.parked(rows, 2)), rows.getLong(4))
                  : new Taken(new Cursor(0, List.of()), 0));
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
          Entry entry = PostgresRows.entry(rows);
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
    return !closed.get() && leases.claim(lane, done, attemptedBefore);
  }

  @Override
  public boolean overShare(String lane) {
    return leases.overShare(lane);
  }

  @Override
  public void release(String lane) {
    leases.release(lane);
  }

  @Override
  public OptionalLong savedNext(String lane) throws IOException {
    try {
      return laneState(
          lane, rows -> rows.next() ? OptionalLong.of(rows.getLong(1)) : OptionalLong.empty());
    } catch (SQLException e) {
      throw new IOException("cannot read the outbox lane " + lane + ": " + e.getMessage(), e);
    }
  }

  private <T> T laneState(String lane, PostgresRows.Reader<T> reader) throws SQLException {
    return PostgresRows.query(store, LANE_STATE, query -> query.setString(1, lane), reader);
  }

  @Override
  public Map<String, Integer> undone(String owner, long before) throws IOException {
    Map<String, Integer> undone = new HashMap<>();
    try {
      return PostgresRows.query(
          store,
          "SELECT l.provider, count(*) FROM memstack_outbox_record r JOIN"
              + " memstack_outbox_lane l ON l.shard = r.shard AND l.lane = l.provider ||"
              + " '#' || l.shard AND l.provider = ANY (r.recipients) AND r.position >="
              + " l.next WHERE r.owner = ? AND r.kind = ? AND r.position < ? GROUP BY"
              + " l.provider",
          PostgresRows.values(owner, PostgresRows.TURN, before),
          rows -> {
            while (rows.next()) {
              undone.put(rows.getString(1), rows.getInt(2));
            }
            return undone;
          });
    } catch (SQLException e) {
      throw new IOException("cannot count an owner's pending turns: " + e.getMessage(), e);
    }
  }

  @Override
  public OptionalLong backlogCut(String provider, int keep) throws IOException {
    try {
      return backlog.cut(provider, keep);
    } catch (SQLException e) {
      throw new IOException("cannot bound the backlog of " + provider + ": " + e.getMessage(), e);
    }
  }

  @Override
  public State state() {
    return backlog.state();
  }

  @Override
  public void onAppend(IntConsumer shard) {
    notifications.onAppend(shard);
  }

  /** Stops the heartbeat and the listener and gives every lease up; rows stay for the next host. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    scheduler.shutdownNow();
    notifications.close();
    leases.close();
  }

  // ---- helpers ----

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("the shared turn outbox is closed");
    }
  }

  private static String hostName() {
    String name = ManagementFactory.getRuntimeMXBean().getName(); // pid@host
    return name.length() > 60 ? name.substring(0, 60) : name;
  }
}
