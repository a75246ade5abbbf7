package dev.memstack.vector.pgvector;

import com.zaxxer.hikari.HikariDataSource;
import dev.memstack.vector.store.DelegatingStore;
import dev.memstack.vector.store.MemoryHistory;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.ModelMismatchException;
import dev.memstack.vector.store.StoreEmbedder;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.SearchRequest;

/**
 * A {@link MemoryVectorStore} on PostgreSQL with pgvector: Spring AI {@code PgVectorStore}'s table
 * design ({@code id text} primary key, {@code content}, {@code metadata jsonb}, {@code embedding
 * vector(n)} with an HNSW cosine index, made when a search first needs it: {@link
 * PgApproximateIndex}) plus real btree-indexed columns {@code agent, owner, scope, status, type,
 * conversation, turn_id, created_at}, and a {@code <table>_meta} table with the embedding model id
 * and dimension. Spring AI's store filters its JSON metadata after an approximate top-k and so
 * loses an owner's memories among everybody else's; this one translates the filter into SQL on the
 * real columns and plans it in two steps: it first scans the records the filter matches exactly
 * ({@code WHERE agent = ? AND (owner = ? OR scope ...) ORDER BY distance LIMIT k} on the btree
 * indexes, one {@code OR} branch at a time so that an owner's records come from an index-only scan
 * of a covering index that holds their vectors, bounded by {@code exact-search-limit}), and only
 * when more records match than that it lets PostgreSQL plan {@code ORDER BY embedding <=> ? LIMIT
 * 4k} (the HNSW index with {@code hnsw.iterative_scan = relaxed_order} and {@code hnsw.ef_search}
 * for broad filters) and re-sorts the result; filters that overflowed are remembered for five
 * minutes so the same owner's next query goes straight to that path. Keyword search is PostgreSQL
 * full text ({@code to_tsvector('english', content)}, GIN index, {@code ts_rank}, any query word
 * matches, stop words and the role words {@code user}/{@code assistant} left out) within the same
 * filter. The exact path's SQL text is the same for every owner (scope and status names are
 * literals, values are bound), so PostgreSQL keeps one generic plan per kind of filter; query
 * vectors go to the server in pgvector's binary form; an {@code add} of many records is written by
 * a binary {@code COPY}.
 *
 * <p>Config keys ({@link PgVectorSettings}): {@code jdbc-url} (required), {@code username}, {@code
 * password}, {@code schema} ({@code memstack}), {@code table} ({@code vector_memory}), {@code
 * pool-size} (8), {@code ef-search} (400), {@code exact-search-limit} (5000), {@code hnsw-m} (16),
 * {@code hnsw-ef-construction} (128), {@code text-search-config} (english). The DataSource is a
 * HikariCP pool over {@link PGSimpleDataSource}, never {@code DriverManager}, which cannot see a
 * plugin's driver; its connections run with {@code jit = off}. The password is never logged or put
 * in a message. Caveats: the pgvector extension must be enabled in the database ({@code CREATE
 * EXTENSION vector}), an error at open says so; a model change re-embeds in one transaction, which
 * holds row locks on the whole table until it commits. Thread-safe.
 *
 * <p>This class is the public face; the work is split by concern: {@link PgVectorLifecycle} (open
 * and re-embedding), {@link PgSearches} (the read side), {@link PgWrites} (the write side), {@link
 * PgTable} (the shared pool, names, model and row mapping), with {@link PgVectorSchema} for the DDL
 * and {@link PgFilter} for filters as SQL.
 */
public final class PgVectorMemoryStore implements DelegatingStore {

  private final PgTable table;
  private final PgWrites writes;
  private final Parts parts;
  private final PgHistory history;
  private final String pgvectorVersion;

  PgVectorMemoryStore(
      PgVectorSettings settings,
      StoreEmbedder embedder,
      HikariDataSource dataSource,
      String pgvectorVersion,
      String modelId,
      int dimension) {
    this.table = new PgTable(settings, embedder, dataSource, modelId, dimension);
    PgListing listing = new PgListing(table);
    this.writes = new PgWrites(table);
    this.parts = new Parts(new PgSearches(table, listing), writes, listing);
    this.history = new PgHistory(table);
    this.pgvectorVersion = pgvectorVersion;
  }

  /**
   * Connects, checks the pgvector extension, creates the schema, table and indexes when missing and
   * checks the embedding model against the stored vectors.
   *
   * @param reembedOnMismatch rebuild the vectors when they come from another model
   * @param reembedKey the full name of the {@code reembed} key, for the mismatch message
   * @throws ModelMismatchException when the stored vectors come from another model and {@code
   *     reembedOnMismatch} is false
   * @throws IllegalStateException when PostgreSQL cannot be reached or lacks pgvector, saying why
   */
  public static PgVectorMemoryStore open(
      PgVectorSettings settings,
      StoreEmbedder embedder,
      boolean reembedOnMismatch,
      String reembedKey) {
    return PgVectorLifecycle.open(settings, embedder, reembedOnMismatch, reembedKey);
  }

  // ---- writes -------------------------------------------------------------------------------

  @Override
  public void add(List<Document> documents) {
    writes.add(documents);
  }

  @Override
  public Parts parts() {
    return parts;
  }

  @Override
  public MemoryHistory history() {
    return history;
  }

  /**
   * {@code VACUUM} of the table and its feedback, history and contradictions tables, outside any
   * transaction: the pages of deleted rows are freed for reuse. PostgreSQL's own retention is
   * beyond it: the WAL, replicas and base backups keep the rows as long as they are configured to,
   * and a transaction still open elsewhere keeps the dead rows it may see until the next vacuum.
   */
  @Override
  public void expungeDeleted() {
    writes.vacuum();
  }

  // ---- reads --------------------------------------------------------------------------------

  @Override
  public List<Document> similaritySearch(SearchRequest request) {
    Objects.requireNonNull(request, "request");
    float[] query = table.embedder.embedQuery(request.getQuery());
    return vectorSearch(
        query, request.getFilterExpression(), request.getTopK(), request.getSimilarityThreshold());
  }

  /**
   * Builds the HNSW index now, unless it exists, and waits for it; otherwise it is built in the
   * background when a search first matches more than {@code exact-search-limit} records. For
   * operators who know such searches will come, and for benchmarks.
   *
   * @return whether the index is ready (false only for vectors too wide for HNSW)
   */
  public boolean buildApproximateIndex() {
    return table.approximateIndex.build();
  }

  /** The pgvector version of the database. */
  public String pgvectorVersion() {
    return pgvectorVersion;
  }

  // ---- re-embedding -------------------------------------------------------------------------

  /**
   * Recomputes every vector from the stored text in one transaction (readers keep seeing the old
   * vectors until it commits), changing the column's dimension and rebuilding the HNSW index when
   * the new model's dimension differs, and records the new model.
   */
  @Override
  public synchronized long reembed() {
    return PgVectorLifecycle.reembed(table);
  }

  // ---- plumbing -----------------------------------------------------------------------------

  @Override
  public String getName() {
    return "pgvector:" + table.schema.displayName();
  }

  /** The connection pool, for tools and benchmarks. */
  @Override
  @SuppressWarnings("unchecked")
  public <T> Optional<T> getNativeClient() {
    return Optional.of((T) table.dataSource);
  }

  /** The pooled DataSource. */
  public DataSource dataSource() {
    return table.dataSource;
  }

  /** The table's names and DDL. */
  PgVectorSchema schema() {
    return table.schema;
  }

  /** The shared state of reads, writes and re-embedding. */
  PgTable table() {
    return table;
  }

  @Override
  public void close() {
    table.dataSource.close();
  }

  @Override
  public String toString() {
    return "PgVectorMemoryStore[" + table.settings + "]";
  }
}
