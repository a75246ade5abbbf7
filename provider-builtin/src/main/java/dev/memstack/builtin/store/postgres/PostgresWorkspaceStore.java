package dev.memstack.builtin.store.postgres;

import dev.memstack.builtin.store.BucketTransaction;
import dev.memstack.builtin.store.Change;
import dev.memstack.builtin.store.ChangeListener;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.FileMeta;
import dev.memstack.builtin.store.OverlayTransaction;
import dev.memstack.builtin.store.OwnerErasedException;
import dev.memstack.builtin.store.StoreRules;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Workspace files as rows of PostgreSQL ({@link PgWorkspaceDatabase}), for hosts that share one
 * workspace. Reads go to the database every time (no copy is kept here, so a write made on another
 * host is seen by the next read); {@link #version} is the bucket's change number, drawn from a
 * sequence in the transaction of every commit, for the caches above the store.
 *
 * <p>A transaction ({@link #update}) takes the bucket's lock twice: a lock of this process (so
 * listeners hear the commits of one bucket in order) and a transaction-scoped advisory lock of the
 * database (so the hosts' writers of one bucket are serialised); it reads the bucket's rows under
 * both, lets the work run, then writes the files, their metadata, the bucket's row with a new
 * version and the keyword index's rows ({@link PostgresKeywordIndex#write}) in one database
 * transaction: all of it or, if the work or any statement fails, none. Update times are the
 * clock's, in milliseconds, and always after the file's previous one, so size and update time
 * identify a version of a file for the content caches.
 *
 * <p>The sandbox rules are the file store's that do not depend on a disk: a name must pass {@link
 * WorkspacePath}; in a TEAM bucket {@code owners/} is reserved; a file cannot have a file's name as
 * its directory, nor a directory's name. Thread-safe.
 */
public final class PostgresWorkspaceStore implements WorkspaceStore {

  private static final Logger log = LoggerFactory.getLogger(PostgresWorkspaceStore.class);

  /** The columns {@link #entry(ResultSet)} reads, in its order. */
  private static final String ENTRY_COLUMNS = "path, enabled, sort_order, size, updated_at";

  private final PgWorkspaceDatabase db;
  private final PostgresKeywordIndex index;
  private final Clock clock;
  private final Predicate<WorkspacePath> weighted;
  private final ChangeListener listener;
  private final Map<Bucket, ReentrantLock> locks = new ConcurrentHashMap<>();

  /**
   * @param db the database (closed with this store)
   * @param index the keyword index whose rows are written with every commit
   * @param clock stamps update times
   * @param weighted which files' hits count more (core files)
   * @param listener told of every commit, under the bucket's lock of this process
   */
  public PostgresWorkspaceStore(
      PgWorkspaceDatabase db,
      PostgresKeywordIndex index,
      Clock clock,
      Predicate<WorkspacePath> weighted,
      ChangeListener listener) {
    if (Stream.of(db, index, clock, weighted, listener).anyMatch(Objects::isNull)) {
      throw new NullPointerException("a PostgreSQL workspace store needs all its parts");
    }
    this.db = db;
    this.index = index;
    this.clock = clock;
    this.weighted = weighted;
    this.listener = listener;
  }

  /** The database. */
  public PgWorkspaceDatabase database() {
    return db;
  }

  // ---------------------------------------------------------------- reads

  @Override
  public List<FileEntry> list(Bucket bucket) {
    try (Connection connection = db.dataSource().getConnection()) {
      List<FileEntry> entries = new ArrayList<>(entries(connection, bucket).values());
      entries.sort(FileEntry.ORDER);
      return entries;
    } catch (SQLException e) {
      throw db.failure("list " + bucket, e);
    }
  }

  @Override
  public Optional<FileEntry> entry(Bucket bucket, WorkspacePath path) {
    try (Connection connection = db.dataSource().getConnection()) {
      return firstRow(
          connection,
          "SELECT " + ENTRY_COLUMNS + " FROM " + db.files + " WHERE bucket = ? AND path = ?",
          PostgresWorkspaceStore::entry,
          bucket.key(),
          path.value());
    } catch (SQLException e) {
      throw db.failure("read " + path + " of " + bucket, e);
    }
  }

  @Override
  public Optional<String> read(Bucket bucket, WorkspacePath path) {
    try (Connection connection = db.dataSource().getConnection()) {
      return content(connection, bucket, path);
    } catch (SQLException e) {
      throw db.failure("read " + path + " of " + bucket, e);
    }
  }

  @Override
  public void checkPath(Bucket bucket, WorkspacePath path) {
    Set<WorkspacePath> existing = new LinkedHashSet<>();
    for (FileEntry entry : list(bucket)) {
      existing.add(entry.path());
    }
    checkPath(bucket, path, existing);
  }

  /**
   * The sandbox rules against the bucket's files {@code existing}.
   *
   * @throws InvalidWorkspacePathException if the name is reserved, or a file is used as a directory
   *     or the other way round
   */
  void checkPath(Bucket bucket, WorkspacePath path, Collection<WorkspacePath> existing) {
    StoreRules.checkNotReserved(bucket, path);
    String directory = path.value() + "/";
    Set<String> names = new java.util.HashSet<>();
    for (WorkspacePath other : existing) {
      if (other.value().startsWith(directory)) {
        throw new InvalidWorkspacePathException("names a directory, not a file");
      }
      names.add(other.value());
    }
    List<String> segments = path.segments();
    StringBuilder prefix = new StringBuilder();
    for (int i = 0; i < segments.size() - 1; i++) {
      prefix.append(i == 0 ? "" : "/").append(segments.get(i));
      if (names.contains(prefix.toString())) {
        throw new InvalidWorkspacePathException(
            "goes through " + prefix + ", which is a file, not a directory");
      }
    }
  }

  @Override
  public boolean seeded(Bucket bucket) {
    try (Connection connection = db.dataSource().getConnection()) {
      return seededIn(connection, bucket);
    } catch (SQLException e) {
      throw db.failure("read " + bucket, e);
    }
  }

  @Override
  public long version(Bucket bucket) {
    try (Connection connection = db.dataSource().getConnection()) {
      return firstRow(
              connection,
              "SELECT version FROM " + db.buckets + " WHERE bucket = ?",
              row -> row.getLong(1),
              bucket.key())
          .orElse(0L);
    } catch (SQLException e) {
      throw db.failure("read the version of " + bucket, e);
    }
  }

  /** The change versions of every TEAM and GLOBAL bucket, by bucket (for the prompt watcher). */
  Map<Bucket, Long> sharedVersions() {
    Map<Bucket, Long> versions = new java.util.HashMap<>();
    try (Connection connection = db.dataSource().getConnection();
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT scope, agent, version FROM " + db.buckets + " WHERE owner IS NULL");
        ResultSet rows = query.executeQuery()) {
      while (rows.next()) {
        long version = rows.getLong(3);
        bucket(rows.getString(1), rows.getString(2), null)
            .ifPresent(bucket -> versions.put(bucket, version));
      }
    } catch (SQLException e) {
      throw db.failure("read the versions of the shared buckets", e);
    }
    return versions;
  }

  @Override
  public List<Bucket> buckets() {
    return buckets("ORDER BY bucket", "list the buckets");
  }

  @Override
  public List<OwnerKey> owners(AgentId agent) {
    return buckets(
            "WHERE agent = ? AND scope = 'PERSONAL' ORDER BY bucket",
            "list the owners of an agent",
            agent.value())
        .stream()
        .map(Bucket::owner)
        .toList();
  }

  @Override
  public List<Bucket> personalBuckets(OwnerKey owner) {
    return buckets(
        "WHERE owner = ? AND scope = 'PERSONAL' ORDER BY bucket",
        "list the buckets of an owner",
        owner.value());
  }

  /** The valid buckets of the rows {@code clause} selects, with {@code params} bound in order. */
  private List<Bucket> buckets(String clause, String failure, String... params) {
    List<Bucket> buckets = new ArrayList<>();
    try (Connection connection = db.dataSource().getConnection();
        PreparedStatement query =
            connection.prepareStatement(
                "SELECT scope, agent, owner FROM " + db.buckets + " " + clause)) {
      bind(query, params);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          bucket(rows.getString(1), rows.getString(2), rows.getString(3)).ifPresent(buckets::add);
        }
      }
    } catch (SQLException e) {
      throw db.failure(failure, e);
    }
    return buckets;
  }

  private static Optional<Bucket> bucket(String scope, String agent, String owner) {
    try {
      return Optional.of(
          new Bucket(
              Scope.valueOf(scope),
              agent == null ? null : AgentId.of(agent),
              owner == null ? null : OwnerKey.of(owner)));
    } catch (IllegalArgumentException | NullPointerException e) {
      log.warn("ignoring a bucket row that is not valid: {} {} {}", scope, agent, e.toString());
      return Optional.empty();
    }
  }

  private NavigableMap<WorkspacePath, FileEntry> entries(Connection connection, Bucket bucket)
      throws SQLException {
    NavigableMap<WorkspacePath, FileEntry> entries = new TreeMap<>();
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT " + ENTRY_COLUMNS + " FROM " + db.files + " WHERE bucket = ?")) {
      query.setString(1, bucket.key());
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          FileEntry entry = entry(rows);
          entries.put(entry.path(), entry);
        }
      }
    }
    return entries;
  }

  private static FileEntry entry(ResultSet row) throws SQLException {
    return new FileEntry(
        WorkspacePath.of(row.getString(1)),
        row.getBoolean(2),
        row.getInt(3),
        row.getLong(4),
        row.getTimestamp(5).toInstant());
  }

  private Optional<String> content(Connection connection, Bucket bucket, WorkspacePath path)
      throws SQLException {
    return firstRow(
        connection,
        "SELECT content FROM " + db.files + " WHERE bucket = ? AND path = ?",
        row -> row.getString(1),
        bucket.key(),
        path.value());
  }

  /** Reads one value of a result row. */
  @FunctionalInterface
  private interface RowReader<T> {
    T read(ResultSet row) throws SQLException;
  }

  /**
   * The first row of {@code sql}, with {@code params} bound in order, as {@code reader} reads it;
   * empty when there is none.
   */
  private static <T> Optional<T> firstRow(
      Connection connection, String sql, RowReader<T> reader, String... params)
      throws SQLException {
    try (PreparedStatement query = connection.prepareStatement(sql)) {
      bind(query, params);
      try (ResultSet row = query.executeQuery()) {
        return row.next() ? Optional.of(reader.read(row)) : Optional.empty();
      }
    }
  }

  private static void bind(PreparedStatement query, String... params) throws SQLException {
    for (int i = 0; i < params.length; i++) {
      query.setString(i + 1, params[i]);
    }
  }

  // ---------------------------------------------------------------- writes

  @Override
  public <T> T update(Bucket bucket, Function<BucketTransaction, T> work) {
    return update(bucket, null, work);
  }

  @Override
  public <T> T updateFenced(Bucket bucket, long seen, Function<BucketTransaction, T> work) {
    return update(bucket, bucket.owner() == null ? null : seen, work);
  }

  @Override
  public long erasures(OwnerKey owner) {
    try (Connection connection = db.dataSource().getConnection()) {
      return erasures(connection, owner);
    } catch (SQLException e) {
      throw db.failure("read the erasures of an owner", e);
    }
  }

  private long erasures(Connection connection, OwnerKey owner) throws SQLException {
    return firstRow(
            connection,
            "SELECT erasures FROM " + db.erasures + " WHERE owner_hash = ?",
            row -> row.getLong(1),
            PgWorkspaceDatabase.ownerHash(owner))
        .orElse(0L);
  }

  /**
   * One transaction under the owner's erasure lock, held exclusively: it waits for the fenced
   * updates under way (they hold it shared until they commit) and makes the later ones see the new
   * count. The owner is kept as a SHA-256, so the count names nobody.
   */
  @Override
  public void countErasure(OwnerKey owner) {
    try (Connection connection = db.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      try {
        advisoryLock(connection, "pg_advisory_xact_lock", erasureLockKey(owner));
        try (PreparedStatement count =
            connection.prepareStatement(
                "INSERT INTO "
                    + db.erasures
                    + " (owner_hash, erasures) VALUES (?, 1) ON CONFLICT (owner_hash) DO UPDATE"
                    + " SET erasures = "
                    + db.erasures
                    + ".erasures + 1")) {
          count.setString(1, PgWorkspaceDatabase.ownerHash(owner));
          count.executeUpdate();
        }
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        rollback(connection);
        throw e;
      }
    } catch (SQLException e) {
      throw db.failure("count an erasure", e);
    }
  }

  private String erasureLockKey(OwnerKey owner) {
    return db.files + "|erasure|" + PgWorkspaceDatabase.ownerHash(owner);
  }

  /**
   * The update of {@link #update}; with {@code seen}, fenced: after the bucket's lock it takes the
   * owner's erasure lock shared (an erasure takes it alone, never with a bucket lock, so the two
   * cannot deadlock) and runs the work only while the owner's erasure count is still {@code seen}.
   */
  private <T> T update(Bucket bucket, Long seen, Function<BucketTransaction, T> work) {
    ReentrantLock lock = locks.computeIfAbsent(bucket, b -> new ReentrantLock());
    lock.lock();
    try {
      List<Change> changes;
      T result;
      try (Connection connection = db.dataSource().getConnection()) {
        connection.setAutoCommit(false);
        try {
          lockBucket(connection, bucket);
          if (seen != null) {
            advisoryLock(
                connection, "pg_advisory_xact_lock_shared", erasureLockKey(bucket.owner()));
            if (erasures(connection, bucket.owner()) != seen) {
              throw new OwnerErasedException(bucket.owner());
            }
          }
          PgBucketTransaction tx =
              new PgBucketTransaction(
                  this,
                  bucket,
                  entries(connection, bucket),
                  seededIn(connection, bucket),
                  clock.instant().truncatedTo(ChronoUnit.MILLIS),
                  path -> {
                    try {
                      return content(connection, bucket, path);
                    } catch (SQLException e) {
                      throw db.failure("read " + path + " of " + bucket, e);
                    }
                  });
          result = work.apply(tx);
          changes = tx.isEmpty() ? List.of() : write(connection, tx);
          connection.commit();
        } catch (SQLException | RuntimeException | Error e) {
          rollback(connection);
          throw e;
        }
      } catch (SQLException e) {
        throw db.failure("write to " + bucket, e);
      }
      StoreRules.tell(listener, bucket, changes);
      return result;
    } finally {
      lock.unlock();
    }
  }

  private void lockBucket(Connection connection, Bucket bucket) throws SQLException {
    advisoryLock(connection, "pg_advisory_xact_lock", db.files + "|" + bucket.key());
  }

  /** Takes a transaction-scoped advisory lock by {@code function} on the hash of {@code key}. */
  private static void advisoryLock(Connection connection, String function, String key)
      throws SQLException {
    try (PreparedStatement lock =
        connection.prepareStatement("SELECT " + function + "(hashtext(?))")) {
      lock.setString(1, key);
      lock.execute();
    }
  }

  private boolean seededIn(Connection connection, Bucket bucket) throws SQLException {
    return firstRow(
            connection,
            "SELECT seeded FROM " + db.buckets + " WHERE bucket = ?",
            row -> row.getBoolean(1),
            bucket.key())
        .orElse(false);
  }

  private List<Change> write(Connection connection, PgBucketTransaction tx) throws SQLException {
    Bucket bucket = tx.bucket();
    String agent = bucket.agent() == null ? null : bucket.agent().value();
    String owner = bucket.owner() == null ? null : bucket.owner().value();
    try (PreparedStatement upsert =
        connection.prepareStatement(
            "INSERT INTO "
                + db.buckets
                + " (bucket, scope, agent, owner, seeded, version) VALUES (?, ?, ?, ?, ?,"
                + " nextval('"
                + db.versions.replace("'", "''")
                + "')) ON CONFLICT (bucket) DO UPDATE SET seeded = EXCLUDED.seeded,"
                + " version = EXCLUDED.version")) {
      upsert.setString(1, bucket.key());
      upsert.setString(2, bucket.scope().name());
      upsert.setString(3, agent);
      upsert.setString(4, owner);
      upsert.setBoolean(5, tx.seeded());
      upsert.executeUpdate();
    }
    NavigableMap<WorkspacePath, FileEntry> after = tx.merged();
    try (PreparedStatement file =
        connection.prepareStatement(
            "INSERT INTO "
                + db.files
                + " (bucket, path, scope, agent, owner, content, size, enabled, sort_order,"
                + " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                + " ON CONFLICT (bucket, path) DO UPDATE SET content = EXCLUDED.content,"
                + " size = EXCLUDED.size, enabled = EXCLUDED.enabled,"
                + " sort_order = EXCLUDED.sort_order, updated_at = EXCLUDED.updated_at")) {
      for (Map.Entry<WorkspacePath, OverlayTransaction.PendingWrite> write :
          tx.writes().entrySet()) {
        FileEntry entry = after.get(write.getKey());
        file.setString(1, bucket.key());
        file.setString(2, write.getKey().value());
        file.setString(3, bucket.scope().name());
        file.setString(4, agent);
        file.setString(5, owner);
        file.setString(6, write.getValue().content());
        file.setLong(7, entry.size());
        file.setBoolean(8, entry.enabled());
        file.setInt(9, entry.sortOrder());
        file.setTimestamp(10, Timestamp.from(entry.updateTime()));
        file.setTimestamp(11, Timestamp.from(entry.updateTime()));
        file.addBatch();
      }
      if (!tx.writes().isEmpty()) {
        file.executeBatch();
      }
    }
    try (PreparedStatement meta =
        connection.prepareStatement(
            "UPDATE "
                + db.files
                + " SET enabled = ?, sort_order = ? WHERE bucket = ? AND path = ?")) {
      for (Map.Entry<WorkspacePath, FileMeta> change : tx.metaChanges().entrySet()) {
        meta.setBoolean(1, change.getValue().enabled());
        meta.setInt(2, change.getValue().sortOrder());
        meta.setString(3, bucket.key());
        meta.setString(4, change.getKey().value());
        meta.addBatch();
      }
      if (!tx.metaChanges().isEmpty()) {
        meta.executeBatch();
      }
    }
    for (Map.Entry<WorkspacePath, OverlayTransaction.PendingWrite> write : tx.writes().entrySet()) {
      WorkspacePath path = write.getKey();
      if (path.isKeptOutOfSearch()) {
        continue; // never searched
      }
      index.write(
          connection,
          bucket,
          path,
          write.getValue().content(),
          after.get(path).updateTime(),
          weighted.test(path));
    }
    return tx.changes(after);
  }

  @Override
  public long delete(Bucket bucket) {
    ReentrantLock lock = locks.computeIfAbsent(bucket, b -> new ReentrantLock());
    lock.lock();
    try {
      List<Change> changes;
      try (Connection connection = db.dataSource().getConnection()) {
        connection.setAutoCommit(false);
        try {
          lockBucket(connection, bucket);
          changes = StoreRules.removed(bucket, entries(connection, bucket).values());
          for (String table : List.of(db.chunks, db.files, db.buckets)) {
            try (PreparedStatement delete =
                connection.prepareStatement("DELETE FROM " + table + " WHERE bucket = ?")) {
              delete.setString(1, bucket.key());
              delete.executeUpdate();
            }
          }
          connection.commit();
        } catch (SQLException | RuntimeException e) {
          rollback(connection);
          throw e;
        }
      } catch (SQLException e) {
        throw db.failure("remove " + bucket, e);
      }
      StoreRules.tell(listener, bucket, changes);
      return changes.size();
    } finally {
      lock.unlock();
    }
  }

  private static void rollback(Connection connection) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      log.warn("rollback failed: {}", e.toString());
    }
  }

  /** Empty when a connection of the pool answers {@code SELECT 1} within two seconds. */
  @Override
  public Optional<String> unavailable() {
    try (Connection connection = db.dataSource().getConnection();
        java.sql.Statement statement = connection.createStatement()) {
      statement.setQueryTimeout(2);
      statement.execute("SELECT 1");
      return Optional.empty();
    } catch (SQLException e) {
      return Optional.of(
          "builtin store at " + db.settings().safeUrl() + " is unreachable: " + e.getMessage());
    }
  }

  /** Closes the database's pool. */
  @Override
  public void close() {
    db.close();
  }
}
