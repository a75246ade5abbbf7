package dev.memstack.builtin.store.postgres;

import dev.memstack.builtin.search.KeywordTexts;
import dev.memstack.builtin.search.Paragraphs;
import dev.memstack.builtin.search.WorkspaceAnalyzer;
import dev.memstack.builtin.store.Change;
import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.store.KeywordIndex;
import dev.memstack.builtin.store.KeywordQuery;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * The keyword index in PostgreSQL, for {@code store=postgres}: one row per paragraph ({@link
 * Paragraphs}, as the Lucene index cuts files) in the store's {@code chunks} table, written by the
 * store in the same transaction as the file, so every host sees a write's index rows together with
 * the write. Stock PostgreSQL has no text search configuration that splits Chinese, Japanese or
 * Korean text, so the tokens are made here, by {@link WorkspaceAnalyzer} (whole Latin words, CJK
 * bigrams), and stored as a {@code simple} {@code tsvector} (each token at its position) with a GIN
 * index; a query is the OR of its analysed terms.
 *
 * <p>Ranking is BM25 ({@code k1} 1.2, {@code b} 0.75, Lucene's formula) computed in SQL over the
 * buckets the caller may see: the paragraph count and the average paragraph length come from the
 * buckets' counters, a term's document frequency from the matching paragraphs, and only the {@value
 * KeywordTexts#MAX_SCORED_TERMS} rarest matched terms are scored, as in Lucene. (Lucene counts
 * frequencies over the whole index, every owner included; here they are the caller's own, so scores
 * differ slightly and nothing of another owner's files bends a ranking.) Core files' scores are
 * multiplied by the weight. Rows are filtered to the caller's buckets and, besides, to rows without
 * owner or of the owners of those buckets, so no other owner's paragraph can be returned.
 *
 * <p>{@link #committed} and {@link #catchUp} do nothing (the store writes the rows in its own
 * transactions), nor does {@link #commit}; {@link #expungeDeletes} vacuums the tables. Thread-safe.
 */
public final class PostgresKeywordIndex implements KeywordIndex {

  /** BM25 parameters, as Lucene's defaults. */
  static final double K1 = 1.2;

  static final double B = 0.75;

  /** PostgreSQL's limits of a {@code tsvector}: lexeme bytes, position, positions per lexeme. */
  private static final int MAX_LEXEME_BYTES = 2046;

  private static final int MAX_POSITION = 16383;
  private static final int MAX_POSITIONS = 255;

  private final Analyzer analyzer = new WorkspaceAnalyzer();
  private final PgWorkspaceDatabase database;
  private final int snippetChars;
  private final String searchSql;

  /**
   * @param database the store's database
   * @param snippetChars length of hit snippets
   */
  public PostgresKeywordIndex(PgWorkspaceDatabase database, int snippetChars) {
    this.database = database;
    this.snippetChars = snippetChars;
    this.searchSql = searchSql(database);
  }

  // ---------------------------------------------------------------- writes (by the store)

  /**
   * Replaces the index rows of a file inside the store's transaction and adjusts its bucket's
   * counters; the file's row and the bucket's row must exist.
   */
  public void write(
      Connection connection,
      Bucket bucket,
      WorkspacePath path,
      String content,
      Instant updateTime,
      boolean weighted)
      throws SQLException {
    long[] removed = deleteRows(connection, bucket, path);
    long chunks = 0;
    long tokens = 0;
    try (PreparedStatement insert =
        connection.prepareStatement(
            "INSERT INTO "
                + database.chunks
                + " (bucket, path, chunk, scope, agent, owner, line, text, tokens, length,"
                + " weighted, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::tsvector, ?, ?, ?)")) {
      int number = 0;
      for (Paragraphs.Chunk chunk : Paragraphs.chunks(content)) {
        Tokens made = tokens(chunk.text());
        insert.setString(1, bucket.key());
        insert.setString(2, path.value());
        insert.setInt(3, number++);
        insert.setString(4, bucket.scope().name());
        insert.setString(5, bucket.agent() == null ? null : bucket.agent().value());
        insert.setString(6, bucket.owner() == null ? null : bucket.owner().value());
        insert.setInt(7, chunk.line());
        insert.setString(8, chunk.text());
        insert.setString(9, made.tsvector());
        insert.setInt(10, made.count());
        insert.setBoolean(11, weighted);
        insert.setTimestamp(12, Timestamp.from(updateTime));
        insert.addBatch();
        chunks++;
        tokens += made.count();
      }
      if (chunks > 0) {
        insert.executeBatch();
      }
    }
    count(connection, bucket, chunks - removed[0], tokens - removed[1]);
  }

  private long[] deleteRows(Connection connection, Bucket bucket, WorkspacePath path)
      throws SQLException {
    long chunks = 0;
    long tokens = 0;
    try (PreparedStatement delete =
        connection.prepareStatement(
            "DELETE FROM " + database.chunks + " WHERE bucket = ? AND path = ? RETURNING length")) {
      delete.setString(1, bucket.key());
      delete.setString(2, path.value());
      try (ResultSet rows = delete.executeQuery()) {
        while (rows.next()) {
          chunks++;
          tokens += rows.getInt(1);
        }
      }
    }
    return new long[] {chunks, tokens};
  }

  private void count(Connection connection, Bucket bucket, long chunks, long tokens)
      throws SQLException {
    if (chunks == 0 && tokens == 0) {
      return;
    }
    try (PreparedStatement update =
        connection.prepareStatement(
            "UPDATE "
                + database.buckets
                + " SET chunks = chunks + ?, tokens = tokens + ? WHERE bucket = ?")) {
      update.setLong(1, chunks);
      update.setLong(2, tokens);
      update.setString(3, bucket.key());
      update.executeUpdate();
    }
  }

  /** A paragraph's tokens as {@code tsvector} input, and how many there are. */
  record Tokens(String tsvector, int count) {}

  /** The tokens of {@code text} with their positions, as a {@code tsvector} literal. */
  Tokens tokens(String text) {
    Map<String, List<Integer>> positions = new LinkedHashMap<>();
    int count = 0;
    try (TokenStream stream = analyzer.tokenStream(KeywordTexts.FIELD, text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        String token = term.toString();
        if (token.getBytes(StandardCharsets.UTF_8).length > MAX_LEXEME_BYTES) {
          continue;
        }
        count++;
        List<Integer> at = positions.computeIfAbsent(token, t -> new ArrayList<>());
        if (at.size() < MAX_POSITIONS) {
          at.add(Math.min(count, MAX_POSITION));
        }
      }
      stream.end();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot analyse a paragraph", e);
    }
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, List<Integer>> token : positions.entrySet()) {
      if (out.length() > 0) {
        out.append(' ');
      }
      out.append(lexeme(token.getKey())).append(':');
      List<Integer> at = new ArrayList<>(new LinkedHashSet<>(token.getValue()));
      for (int i = 0; i < at.size(); i++) {
        out.append(i == 0 ? "" : ",").append(at.get(i));
      }
    }
    return new Tokens(out.toString(), count);
  }

  /** A lexeme quoted for {@code tsvector} and {@code tsquery} input. */
  static String lexeme(String token) {
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'";
  }

  // ---------------------------------------------------------------- KeywordIndex

  /** Does nothing: the store writes the rows in the transaction of the change. */
  @Override
  public void committed(Bucket bucket, List<Change> changes, Predicate<WorkspacePath> weighted) {}

  /** Does nothing: the rows are always in step with the files. */
  @Override
  public void catchUp(WorkspaceStore store, Predicate<WorkspacePath> weighted) {}

  /** Places every hit at its first match, whatever {@link KeywordQuery#snippets()} says. */
  @Override
  public List<KeywordHit> search(KeywordQuery query) {
    Collection<Bucket> buckets = query.buckets();
    int limit = query.limit();
    int maxFiles = query.maxFiles();
    double weight = query.weight();
    Collection<String> excludedFiles = query.excludedFiles();
    Set<String> terms = KeywordTexts.terms(analyzer, query.text());
    if (terms.isEmpty() || buckets.isEmpty() || limit <= 0) {
      return List.of();
    }
    int fetch = limit <= maxFiles ? limit : Math.min(1000, limit * 4);
    List<String> keys = new ArrayList<>();
    Set<String> owners = new LinkedHashSet<>();
    for (Bucket bucket : buckets) {
      keys.add(bucket.key());
      if (bucket.owner() != null) {
        owners.add(bucket.owner().value());
      }
    }
    StringBuilder tsquery = new StringBuilder();
    for (String term : terms) {
      tsquery.append(tsquery.length() == 0 ? "" : " | ").append(lexeme(term));
    }
    List<KeywordHit> hits = new ArrayList<>();
    try (Connection connection = database.dataSource().getConnection();
        PreparedStatement select = connection.prepareStatement(searchSql)) {
      Array termArray = connection.createArrayOf("text", terms.toArray());
      Array keyArray = connection.createArrayOf("text", keys.toArray());
      select.setArray(1, termArray);
      select.setArray(2, keyArray);
      select.setArray(3, connection.createArrayOf("text", owners.toArray()));
      select.setString(4, tsquery.toString());
      select.setArray(5, connection.createArrayOf("text", excludedFiles.toArray()));
      select.setArray(6, keyArray);
      select.setDouble(7, weight);
      select.setInt(8, fetch);
      Set<String> files = new HashSet<>();
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next() && hits.size() < limit) {
          String key = rows.getString("bucket") + "|" + rows.getString("path");
          if (!files.contains(key) && files.size() >= maxFiles) {
            continue;
          }
          files.add(key);
          Set<String> scored = new HashSet<>(List.of((String[]) rows.getArray("terms").getArray()));
          String agent = rows.getString("agent");
          String owner = rows.getString("owner");
          Bucket bucket =
              new Bucket(
                  Scope.valueOf(rows.getString("scope")),
                  agent == null ? null : AgentId.of(agent),
                  owner == null ? null : OwnerKey.of(owner));
          hits.add(
              KeywordTexts.hit(
                  analyzer,
                  snippetChars,
                  bucket,
                  WorkspacePath.of(rows.getString("path")),
                  rows.getInt("line"),
                  rows.getString("text"),
                  rows.getDouble("score"),
                  rows.getTimestamp("updated_at").toInstant(),
                  scored));
        }
      }
    } catch (SQLException e) {
      throw database.failure("keyword search", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot analyse a hit", e);
    }
    return hits;
  }

  /**
   * The search: paragraphs of the visible buckets (and of no other owner) that hold any query term,
   * each reduced to the query terms it holds ({@code setweight} marks them, {@code ts_filter} keeps
   * them); document frequencies of those terms among the matches; the rarest {@value
   * KeywordTexts#MAX_SCORED_TERMS} scored with BM25 against the buckets' paragraph count and
   * average length; weighted, ordered, cut. Parameters: terms, bucket keys, owners, tsquery,
   * excluded file keys, bucket keys, weight, limit.
   */
  private static String searchSql(PgWorkspaceDatabase database) {
    return "WITH cand AS ("
        + " SELECT c.bucket, c.path, c.chunk, c.length, c.weighted,"
        + " ts_filter(setweight(c.tokens, 'A', ?::text[]), '{a}') AS hits"
        + " FROM "
        + database.chunks
        + " c WHERE c.bucket = ANY(?) AND (c.owner IS NULL OR c.owner = ANY(?))"
        + " AND c.tokens @@ ?::tsquery AND NOT ((c.bucket || '|' || c.path) = ANY(?))),"
        + " tf AS (SELECT cand.bucket, cand.path, cand.chunk, cand.length, cand.weighted,"
        + " u.lexeme, cardinality(u.positions) AS tf FROM cand, unnest(cand.hits) u),"
        + " df AS (SELECT lexeme, count(*) AS df FROM tf GROUP BY lexeme),"
        + " rare AS (SELECT lexeme, df FROM df ORDER BY df, lexeme LIMIT "
        + KeywordTexts.MAX_SCORED_TERMS
        + "),"
        + " stats AS (SELECT greatest(coalesce(sum(chunks), 0), 1)::float8 AS n,"
        + " greatest(coalesce(sum(tokens), 0)::float8 / greatest(coalesce(sum(chunks), 0), 1), 1)"
        + " AS avglen FROM "
        + database.buckets
        + " WHERE bucket = ANY(?)),"
        + " scored AS (SELECT tf.bucket, tf.path, tf.chunk,"
        + " sum(ln(1 + (s.n - r.df + 0.5) / (r.df + 0.5)) * tf.tf / (tf.tf + "
        + K1
        + " * (1 - "
        + B
        + " + "
        + B
        + " * tf.length / s.avglen)))"
        + " * CASE WHEN tf.weighted THEN ? ELSE 1 END AS score"
        + " FROM tf JOIN rare r USING (lexeme) CROSS JOIN stats s"
        + " GROUP BY tf.bucket, tf.path, tf.chunk, tf.weighted)"
        + " SELECT sc.score, c.bucket, c.path, c.scope, c.agent, c.owner, c.line, c.text,"
        + " c.updated_at, (SELECT array_agg(lexeme) FROM rare) AS terms"
        + " FROM scored sc JOIN "
        + database.chunks
        + " c USING (bucket, path, chunk)"
        + " ORDER BY sc.score DESC, c.bucket, c.path, c.chunk LIMIT ?";
  }

  /** Vacuums the tables, so that deleted rows leave nothing on the pages. */
  @Override
  public void expungeDeletes() {
    database.vacuum();
  }

  @Override
  public void commit() {}

  /** Does nothing: the database belongs to the store. */
  @Override
  public void close() {}
}
