package dev.memstack.vector.pgvector;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.memstack.support.PgConnections;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.ModelMismatchException;
import dev.memstack.vector.store.StoreEmbedder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle of a pgvector store: opening (connections, the pgvector and text search checks,
 * creating or adopting the schema, the model check against {@code <table>_meta}, the HikariCP pool)
 * and re-embedding every record in one transaction when the model changes. Logs under the store's
 * logger.
 */
final class PgVectorLifecycle {

  private static final Logger log = LoggerFactory.getLogger(PgVectorMemoryStore.class);

  /** Texts per embedder call and UPDATE batch while re-embedding. */
  private static final int REEMBED_BATCH = 256;

  private PgVectorLifecycle() {}

  /** See {@link PgVectorMemoryStore#open}. */
  static PgVectorMemoryStore open(
      PgVectorSettings settings,
      StoreEmbedder embedder,
      boolean reembedOnMismatch,
      String reembedKey) {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(embedder, "embedder");
    PGSimpleDataSource connections = connections(settings);
    PgVectorSchema schema = new PgVectorSchema(settings);
    String version;
    Map<String, String> meta;
    boolean hasRows;
    try (Connection connection = connections.getConnection()) {
      version = PgVectorSchema.checkExtension(connection);
      schema.checkTextSearchConfig(connection);
      connection.setAutoCommit(false);
      schema.lock(connection);
      schema.createMeta(connection);
      meta = schema.readMeta(connection);
      hasRows = false;
      if (schema.tableExists(connection)) {
        int columnDimension = schema.checkTable(connection);
        hasRows = hasRows(connection, schema);
        if (!meta.containsKey(PgVectorSchema.META_MODEL)) {
          // a table without a model record: only an empty one can be adopted safely
          if (hasRows) {
            throw new IllegalStateException(
                "table "
                    + schema.displayName()
                    + " holds records but "
                    + schema.displayName()
                    + "_meta does not say which embedding model made them; configure another"
                    + " table");
          }
          meta.put(PgVectorSchema.META_MODEL, embedder.modelId());
          meta.put(PgVectorSchema.META_DIMENSION, Integer.toString(columnDimension));
        }
        meta.put(PgVectorSchema.META_DIMENSION, Integer.toString(columnDimension));
      }
      String storedModel = meta.getOrDefault(PgVectorSchema.META_MODEL, embedder.modelId());
      int storedDimension =
          Integer.parseInt(
              meta.getOrDefault(
                  PgVectorSchema.META_DIMENSION, Integer.toString(embedder.dimension())));
      boolean mismatch =
          !storedModel.equals(embedder.modelId()) || storedDimension != embedder.dimension();
      if (mismatch && hasRows && !reembedOnMismatch) {
        throw new ModelMismatchException(
            "pgvector table " + schema.displayName(),
            storedModel,
            storedDimension,
            embedder.modelId(),
            embedder.dimension(),
            reembedKey);
      }
      if (mismatch && !hasRows) {
        // nothing to mix: an empty store adopts the current model
        if (storedDimension != embedder.dimension() && schema.tableExists(connection)) {
          changeDimension(connection, schema, embedder.dimension());
        }
        storedModel = embedder.modelId();
        storedDimension = embedder.dimension();
        mismatch = false;
      }
      schema.createTable(connection, storedDimension);
      schema.writeMeta(connection, storedModel, storedDimension);
      connection.commit();
      PgVectorMemoryStore store =
          new PgVectorMemoryStore(
              settings,
              embedder,
              pool(settings, connections, version),
              version,
              storedModel,
              storedDimension);
      if (mismatch) {
        log.warn(
            "pgvector table {} holds vectors of '{}' ({} dimensions); re-embedding every record"
                + " with '{}' ({} dimensions)",
            schema.displayName(),
            storedModel,
            storedDimension,
            embedder.modelId(),
            embedder.dimension());
        try {
          store.reembed();
        } catch (RuntimeException e) {
          store.close();
          throw e;
        }
      }
      log.info(
          "pgvector store {} ready at {} (pgvector {}, model '{}', {} dimensions)",
          schema.displayName(),
          settings.safeUrl(),
          version,
          store.table().modelId(),
          store.table().dimension());
      return store;
    } catch (SQLException e) {
      throw new IllegalStateException(
          "pgvector store "
              + schema.displayName()
              + " at "
              + settings.safeUrl()
              + (settings.username() == null ? "" : " as " + settings.username())
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static PGSimpleDataSource connections(PgVectorSettings settings) {
    return PgConnections.source(
        settings.jdbcUrl(), settings.username(), settings.password(), "memstack-vector");
  }

  private static HikariDataSource pool(
      PgVectorSettings settings, PGSimpleDataSource connections, String version) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("memstack-pgvector-" + settings.schema() + "." + settings.table());
    config.setDataSource(connections);
    config.setMaximumPoolSize(settings.poolSize());
    config.setMinimumIdle(Math.min(2, settings.poolSize()));
    // JIT compilation costs tens of milliseconds and never pays off for these short queries;
    // iterative scans only matter to the HNSW path (the exact path does not use the index)
    StringBuilder init = new StringBuilder("SET jit = off");
    init.append("; SET hnsw.ef_search = ").append(settings.efSearch());
    if (PgVectorSchema.atLeast(version, PgVectorSchema.ITERATIVE_SCAN_VERSION)) {
      init.append("; SET hnsw.iterative_scan = relaxed_order");
    }
    config.setConnectionInitSql(init.toString());
    try {
      return new HikariDataSource(config);
    } catch (HikariPool.PoolInitializationException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new IllegalStateException(
          "pgvector store at " + settings.safeUrl() + ": " + cause.getMessage(), e);
    }
  }

  private static boolean hasRows(Connection connection, PgVectorSchema schema) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row =
            statement.executeQuery("SELECT EXISTS (SELECT 1 FROM " + schema.table() + ")")) {
      row.next();
      return row.getBoolean(1);
    }
  }

  /** Empties the vector column and retypes it; the HNSW index is built again when needed. */
  private static void changeDimension(Connection connection, PgVectorSchema schema, int dimension)
      throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(
          "DROP INDEX IF EXISTS "
              + PgVectorSchema.quote(schema.tableSchema())
              + "."
              + PgVectorSchema.quote(schema.hnswIndex()));
      statement.execute(
          "ALTER TABLE "
              + schema.table()
              + " ALTER COLUMN embedding TYPE vector("
              + dimension
              + ") USING NULL");
    }
  }

  // ---- re-embedding -------------------------------------------------------------------------

  /**
   * Recomputes every vector from the stored text in one transaction (readers keep seeing the old
   * vectors until it commits), changing the column's dimension and rebuilding the HNSW index when
   * the new model's dimension differs, and records the new model. Called only through the store's
   * synchronized {@link PgVectorMemoryStore#reembed()}, which serialises re-embeddings.
   */
  static long reembed(PgTable table) {
    String newModel = table.embedder.modelId();
    int newDimension = table.embedder.dimension();
    long done = 0;
    try (Connection connection = table.dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        table.schema.lock(connection);
        boolean retyped = false;
        if (newDimension != table.schema.checkTable(connection)) {
          changeDimension(connection, table.schema, newDimension);
          retyped = true;
        }
        try (PreparedStatement read =
                connection.prepareStatement(
                    "SELECT id, content, metadata->>'"
                        + MemoryRecord.CONTEXT
                        + "' FROM "
                        + table.schema.table()
                        + " ORDER BY id");
            PreparedStatement write =
                connection.prepareStatement(
                    "UPDATE " + table.schema.table() + " SET embedding = ?::vector WHERE id = ?")) {
          read.setFetchSize(REEMBED_BATCH);
          List<String> ids = new ArrayList<>(REEMBED_BATCH);
          List<String> texts = new ArrayList<>(REEMBED_BATCH);
          try (ResultSet rows = read.executeQuery()) {
            while (rows.next()) {
              ids.add(rows.getString(1));
              // embedded with its context, as when written
              texts.add(MemoryRecord.embeddingText(rows.getString(2), rows.getString(3)));
              if (ids.size() == REEMBED_BATCH) {
                done += writeVectors(table, write, ids, texts);
              }
            }
          }
          done += writeVectors(table, write, ids, texts);
        }
        table.schema.writeMeta(connection, newModel, newDimension);
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw table.failure("re-embed with model '" + newModel + "'", e);
    }
    table.useModel(newModel, newDimension);
    // a new dimension dropped the HNSW index: the next search that needs it builds it again
    table.approximateIndex.forget();
    log.info(
        "pgvector table {}: re-embedded {} records with '{}' ({} dimensions)",
        table.schema.displayName(),
        done,
        newModel,
        newDimension);
    return done;
  }

  private static int writeVectors(
      PgTable table, PreparedStatement write, List<String> ids, List<String> texts)
      throws SQLException {
    if (ids.isEmpty()) {
      return 0;
    }
    List<float[]> vectors = table.embedder.embedPassages(texts);
    for (int i = 0; i < ids.size(); i++) {
      write.setObject(1, PgVectors.parameter(vectors.get(i)));
      write.setString(2, ids.get(i));
      write.addBatch();
    }
    write.executeBatch();
    int n = ids.size();
    ids.clear();
    texts.clear();
    return n;
  }
}
