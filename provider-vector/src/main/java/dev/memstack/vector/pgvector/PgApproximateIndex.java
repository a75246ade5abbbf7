package dev.memstack.vector.pgvector;

import dev.memstack.support.DaemonThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table's HNSW index, made when a search first needs it instead of with the table. Every search
 * of an owner's records, of the shared records, and of any filter that matches at most {@code
 * exact-search-limit} records is exact and never reads this index, while every write into a table
 * that has it pays for inserting the vector into the graph (about 94 % of a bulk load). So the
 * index is built, by {@code CREATE INDEX CONCURRENTLY} on a background thread, the first time a
 * search takes the approximate path; until it is ready that search and the ones after it are still
 * answered, by PostgreSQL's plan without the index (a scan of the filter's records, exact). One
 * host builds it at a time (a session advisory lock; the others wait, then find it built), a build
 * left invalid by a crash is dropped and made again, and an index that exists (an older table, or
 * one made by an operator) is simply used. Thread-safe.
 */
final class PgApproximateIndex {

  private static final Logger log = LoggerFactory.getLogger(PgVectorMemoryStore.class);

  /** How often a search that needs the index looks again whether another host built it. */
  private static final long CHECK_INTERVAL_NANOS = 60_000_000_000L;

  private final PgTable table;
  private final AtomicBoolean building = new AtomicBoolean();
  private volatile boolean ready;
  private volatile long checkedAt;

  PgApproximateIndex(PgTable table) {
    this.table = table;
  }

  /**
   * Called by a search that takes the approximate path: starts building the index in the background
   * unless it is known to exist, is being built here, or was looked for less than a minute ago.
   * Never blocks the search.
   */
  void needed() {
    if (ready || !indexable()) {
      return;
    }
    long now = System.nanoTime();
    if (checkedAt != 0 && now - checkedAt < CHECK_INTERVAL_NANOS) {
      return;
    }
    checkedAt = now;
    if (!building.compareAndSet(false, true)) {
      return;
    }
    DaemonThreads.named("memstack-pgvector-hnsw-" + table.schema.displayName())
        .newThread(
            () -> {
              try {
                build();
              } catch (RuntimeException e) {
                log.warn(
                    "pgvector table {}: could not build the HNSW index ({}); searches of large"
                        + " filters stay exact scans until a later search tries again",
                    table.schema.displayName(),
                    e.getMessage());
              } finally {
                building.set(false);
              }
            })
        .start();
  }

  /**
   * Builds the index now unless it exists and is valid (waiting for another host's build to end
   * first); returns whether it is ready.
   *
   * @throws IllegalStateException when PostgreSQL refuses
   */
  boolean build() {
    if (!indexable()) {
      return false;
    }
    String key = "memstack-pgvector-hnsw:" + table.schema.displayName();
    try (Connection connection = table.dataSource.getConnection()) {
      connection.setAutoCommit(true); // CREATE INDEX CONCURRENTLY refuses a transaction block
      try (PreparedStatement lock =
          connection.prepareStatement("SELECT pg_advisory_lock(hashtext(?))")) {
        lock.setString(1, key);
        lock.execute();
      }
      try {
        Boolean valid = validity(connection);
        if (Boolean.TRUE.equals(valid)) {
          ready = true;
          return true;
        }
        try (Statement statement = connection.createStatement()) {
          if (valid != null) {
            // what an interrupted concurrent build leaves behind: unusable, and in the way
            statement.execute("DROP INDEX CONCURRENTLY IF EXISTS " + qualifiedName());
          }
          long started = System.nanoTime();
          log.info(
              "pgvector table {}: a search matched more than {} records; building the HNSW index",
              table.schema.displayName(),
              table.settings.exactSearchLimit());
          statement.execute(table.schema.hnswIndexStatement());
          log.info(
              "pgvector table {}: HNSW index built in {} s",
              table.schema.displayName(),
              (System.nanoTime() - started) / 1_000_000_000L);
        }
        ready = true;
        return true;
      } finally {
        try (PreparedStatement unlock =
            connection.prepareStatement("SELECT pg_advisory_unlock(hashtext(?))")) {
          unlock.setString(1, key);
          unlock.execute();
        }
      }
    } catch (SQLException e) {
      throw table.failure("build the HNSW index", e);
    }
  }

  /** Forgets what was seen (the index was dropped, e.g. by a change of dimension). */
  void forget() {
    ready = false;
    checkedAt = 0;
  }

  /** HNSW indexes hold vectors of at most {@link PgVectorSchema#MAX_INDEXED_DIMENSION}. */
  private boolean indexable() {
    return table.dimension() <= PgVectorSchema.MAX_INDEXED_DIMENSION;
  }

  /** True when the index exists and is valid, false when it exists but is invalid, else null. */
  private Boolean validity(Connection connection) throws SQLException {
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass(?)")) {
      query.setString(1, qualifiedName());
      try (ResultSet row = query.executeQuery()) {
        return row.next() ? row.getBoolean(1) : null;
      }
    }
  }

  private String qualifiedName() {
    return PgVectorSchema.quote(table.schema.tableSchema())
        + "."
        + PgVectorSchema.quote(table.schema.hnswIndex());
  }
}
