package dev.memstack.vector.pgvector.bench;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.testing.TestPostgres;
import dev.memstack.vector.bench.MixtureVectors;
import dev.memstack.vector.pgvector.PgVectorMemoryStore;
import dev.memstack.vector.pgvector.PgVectorSettings;
import dev.memstack.vector.pgvector.PgVectors;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.core.BaseConnection;
import org.postgresql.util.PGobject;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * Measures the pgvector store on synthetic 384-dimensional vectors ({@link MixtureVectors}):
 * owner-filtered top-5 latency (p50/p99, medians over runs) and recall against exact search in
 * Java, beside a raw pgvector baseline in the same runs (the same vectors in a plain table {@code
 * (id, owner, embedding)} with an owner index, loaded by one COPY, searched by {@code WHERE owner =
 * ? ORDER BY embedding <#> ? LIMIT 5}); the plans it chooses between (exact scan on the btree
 * indexes, HNSW with and without iterative scans, Spring AI's JSON post-filter); the exact-scan
 * cost by filter size, which sets {@code exact-search-limit}; and unfiltered HNSW recall@10 by
 * {@code ef_search}. Load: the first {@code --via-store} (10,000) records through {@link
 * PgVectorMemoryStore#add}, the rest with COPY with the secondary indexes dropped and rebuilt
 * afterwards (times reported). Each size gets its own schema, dropped at the end.
 *
 * <p>Run (database from {@code eval "$(scripts/pgvector-setup.sh)"}):
 *
 * <pre>
 * MAVEN_OPTS=-Xmx4g ./mvnw -B -q -pl provider-vector test-compile exec:java \
 *   -Dexec.classpathScope=test \
 *   -Dexec.mainClass=dev.memstack.vector.pgvector.bench.PgVectorBenchmark \
 *   -Dexec.args="--records=100000,1000000 --runs=3"
 * </pre>
 *
 * Options: {@code --records} (sizes), {@code --owners} (1000), {@code --queries} per run (1000),
 * {@code --runs} (3), {@code --sections} (filtered,variants,sizes,ann; also rawhnsw: the time to
 * build the store's HNSW index on the baseline table), {@code --via-store} (records loaded through
 * the store, 10000), {@code --with-hnsw} (build the HNSW index before loading, as tables had it
 * before it was made on demand, to see what it costs), {@code --out} (a Markdown file the results
 * are appended to, default {@code target/bench/pgvector.md}), {@code --keep} (keep the tables),
 * {@code --reuse} (keep them and reuse a table an earlier {@code --reuse} run loaded with the same
 * size), {@code --schema-prefix} (the tables of size n go to schema {@code <prefix>n}, default
 * {@code bench_}), {@code --ef-search} (the {@code ef_search} values of the unfiltered recall
 * section, default 40,100,200).
 */
public final class PgVectorBenchmark {

  private static final int DIMENSION = 384;
  private static final AgentId AGENT = AgentId.of("agent-a");
  private static final AgentId OTHER_AGENT = AgentId.of("agent-b");
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final DateTimeFormatter PG_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);
  private static final String[] WORDS = words();

  private final int owners;
  private final int viaStore;
  private final int queries;
  private final int runs;
  private final Path out;
  private final boolean keep;
  private final boolean reuse;
  private final boolean withHnsw;
  private final Set<String> sections;
  private final String schemaPrefix;
  private final int[] efSearches;
  private final String url;
  private final String user;
  private final String password;
  private final MixtureVectors vectors = new MixtureVectors(DIMENSION, 256, 42);

  private PgVectorBenchmark(Map<String, String> options) {
    owners = Integer.parseInt(options.getOrDefault("owners", "1000"));
    viaStore = Integer.parseInt(options.getOrDefault("via-store", "10000"));
    queries = Integer.parseInt(options.getOrDefault("queries", "1000"));
    runs = Integer.parseInt(options.getOrDefault("runs", "3"));
    out = Path.of(options.getOrDefault("out", "target/bench/pgvector.md"));
    keep = options.containsKey("keep") || options.containsKey("reuse");
    reuse = options.containsKey("reuse");
    withHnsw = options.containsKey("with-hnsw");
    sections = Set.of(options.getOrDefault("sections", "filtered,variants,sizes,ann").split(","));
    schemaPrefix = options.getOrDefault("schema-prefix", "bench_");
    efSearches =
        Arrays.stream(options.getOrDefault("ef-search", "40,100,200").split(","))
            .mapToInt(e -> Integer.parseInt(e.trim()))
            .toArray();
    if (!schemaPrefix.matches("[a-z_][a-z0-9_]*")) {
      throw new IllegalArgumentException("--schema-prefix: lower-case letters, digits and _ only");
    }
    TestPostgres postgres =
        TestPostgres.environment()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        TestPostgres.URL_VARIABLE
                            + " is not set: run eval \"$(scripts/pgvector-setup.sh)\" first"));
    url = postgres.url();
    user = postgres.user();
    password = postgres.password();
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      String a = arg.startsWith("--") ? arg.substring(2) : arg;
      int eq = a.indexOf('=');
      options.put(eq < 0 ? a : a.substring(0, eq), eq < 0 ? "" : a.substring(eq + 1));
    }
    PgVectorBenchmark benchmark = new PgVectorBenchmark(options);
    for (String size : options.getOrDefault("records", "100000").split(",")) {
      benchmark.run(Integer.parseInt(size.trim().replace("_", "")));
    }
  }

  // ---- the data set ---------------------------------------------------------------------------

  /** Who record {@code i} belongs to; -1 for shared (TEAM/GLOBAL) records. */
  private int owner(int i) {
    return scope(i) == Scope.PERSONAL
        ? (int) Long.remainderUnsigned(MixtureVectors.mix(i * 31L + 7), owners)
        : -1;
  }

  /** 100 TEAM and 20 GLOBAL records among the first 100,000, whatever the size. */
  private static Scope scope(int i) {
    if (i < 100_000 && i % 1000 == 7) {
      return Scope.TEAM;
    }
    if (i < 100_000 && i % 5000 == 11) {
      return Scope.GLOBAL;
    }
    return Scope.PERSONAL;
  }

  private static AgentId agent(int i) {
    return i % 10 == 9 && scope(i) == Scope.PERSONAL ? OTHER_AGENT : AGENT;
  }

  private static MemoryStatus status(int i) {
    return i % 20 == 5 ? MemoryStatus.ARCHIVED : MemoryStatus.ACTIVE;
  }

  private static String text(int i) {
    Random random = new Random(MixtureVectors.mix(i + 1_000_000_007L));
    StringBuilder text = new StringBuilder("memory ").append(i).append(':');
    for (int w = 0; w < 24; w++) {
      text.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
    }
    return text.toString();
  }

  private MemoryRecord record(int i) {
    int owner = owner(i);
    return new MemoryRecord(
        "m" + i,
        text(i),
        agent(i),
        owner < 0 ? null : OwnerKey.of("user:" + owner),
        scope(i),
        status(i),
        "FACT",
        "c" + (i / 20),
        "t" + (i / 2),
        T0.plusSeconds(i),
        Map.of());
  }

  /** Embeds the benchmark's texts ({@code memory <i>: ...}) as record {@code i}'s vector. */
  private final class SyntheticEmbedder implements Embedder {
    @Override
    public String modelId() {
      return "synthetic-mixture-384";
    }

    @Override
    public int dimension() {
      return DIMENSION;
    }

    @Override
    public List<float[]> embed(List<String> texts, Kind kind) {
      List<float[]> result = new ArrayList<>(texts.size());
      for (String text : texts) {
        int colon = text.indexOf(':');
        result.add(vectors.record(Integer.parseInt(text.substring("memory ".length(), colon))));
      }
      return result;
    }
  }

  // ---- one size -------------------------------------------------------------------------------

  private void run(int size) throws Exception {
    String schema = schemaPrefix + size;
    PgVectorSettings settings = PgVectorSettings.of(url, user, password).withSchema(schema);
    report("");
    report("### " + String.format(Locale.ROOT, "%,d", size) + " records, " + owners + " owners");
    boolean loaded;
    try (PgVectorMemoryStore setup = PgVectorMemoryStore.open(settings, embedder(), false, "-")) {
      loaded = reuse && setup.count(null) == size;
      if (!loaded) {
        execute(setup, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
    }
    report("- load average before: " + loadAverage());
    float[] all = new float[size * DIMENSION];
    List<List<Integer>> byOwner = new ArrayList<>();
    for (int o = 0; o < owners; o++) {
      byOwner.add(new ArrayList<>());
    }
    List<Integer> shared = new ArrayList<>();
    try (PgVectorMemoryStore store = PgVectorMemoryStore.open(settings, embedder(), false, "-")) {
      index(size, all, byOwner, shared);
      if (loaded) {
        report("- reusing the table loaded by an earlier run (--reuse)");
      } else {
        if (withHnsw) {
          store.buildApproximateIndex();
          report("- HNSW index built before the load (--with-hnsw), live during it");
        } else {
          report("- no HNSW index during the load (the store builds it when a search needs it)");
        }
        load(store, schema, size);
      }
      report(
          String.format(
              Locale.ROOT,
              "- sizes: table+indexes %s, HNSW index %s, covering owner index %s;"
                  + " PostgreSQL %s, pgvector %s",
              single(
                  store,
                  "SELECT pg_size_pretty(pg_total_relation_size('" + schema + ".vector_memory'))"),
              single(
                  store,
                  "SELECT coalesce(pg_size_pretty(pg_relation_size(to_regclass('"
                      + schema
                      + ".vector_memory_embedding_hnsw'))), 'none')"),
              single(
                  store,
                  "SELECT coalesce(pg_size_pretty(pg_relation_size(to_regclass('"
                      + schema
                      + ".vector_memory_owner_vector_idx'))), 'none')"),
              single(store, "SHOW server_version"),
              store.pgvectorVersion()));
      explain(store, schema);
      if (sections.contains("filtered")) {
        if (!loaded || !rawLoaded(store, schema, size)) {
          loadRaw(store, schema, size);
        }
        filtered(store, schema, all, byOwner, shared);
        report("- load average during the filtered runs: " + loadAverage());
      }
      if (sections.contains("rawhnsw")) {
        rawHnswBuild(store, schema);
      }
      if (sections.contains("variants") || sections.contains("ann")) {
        long t = System.nanoTime();
        store.buildApproximateIndex();
        report(
            String.format(
                Locale.ROOT,
                "- HNSW index ready for the sections that use it: %.1f s (built now, or already"
                    + " there)",
                seconds(t)));
      }
      if (sections.contains("variants")) {
        planVariants(store, schema, all, byOwner, shared);
      }
      if (sections.contains("sizes")) {
        exactCostBySize(settings, all, byOwner, shared, size);
      }
      if (sections.contains("ann")) {
        approximate(store, schema, size, all);
      }
      report("- load average after: " + loadAverage());
      if (!keep) {
        execute(store, "DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }

  private StoreEmbedder embedder() {
    return new StoreEmbedder(new SyntheticEmbedder(), 512);
  }

  /** The vectors in memory and who may see which record, for exact search in Java. */
  private void index(int size, float[] all, List<List<Integer>> byOwner, List<Integer> shared) {
    for (int i = 0; i < size; i++) {
      float[] v = vectors.record(i);
      System.arraycopy(v, 0, all, i * DIMENSION, DIMENSION);
      if (status(i) != MemoryStatus.ACTIVE) {
        continue;
      }
      if (scope(i) == Scope.PERSONAL && agent(i).equals(AGENT)) {
        byOwner.get(owner(i)).add(i);
      } else if (scope(i) == Scope.GLOBAL || scope(i) == Scope.TEAM && agent(i).equals(AGENT)) {
        shared.add(i);
      }
    }
  }

  private void load(PgVectorMemoryStore store, String schema, int size)
      throws SQLException, IOException {
    int viaStore = Math.min(size, this.viaStore);
    long t = System.nanoTime();
    for (int start = 0; start < viaStore; start += 500) {
      List<Document> batch = new ArrayList<>();
      for (int i = start; i < Math.min(viaStore, start + 500); i++) {
        batch.add(record(i).toDocument());
      }
      store.add(batch);
    }
    double storeSeconds = seconds(t);
    report(
        String.format(
            Locale.ROOT,
            "- load: %,d records through the store's add (batches of 500, all indexes live): %.1f s"
                + " (%,.0f records/s)",
            viaStore,
            storeSeconds,
            viaStore / storeSeconds));
    if (size <= viaStore) {
      execute(store, "VACUUM ANALYZE " + schema + ".vector_memory");
      return;
    }
    List<String> indexes = new ArrayList<>();
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement q =
            c.prepareStatement(
                "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = ?"
                    + " AND indexname LIKE 'vector_memory%' AND indexname NOT LIKE '%pkey'")) {
      q.setString(1, schema);
      try (ResultSet rows = q.executeQuery()) {
        while (rows.next()) {
          indexes.add(rows.getString(2));
          execute(store, "DROP INDEX " + schema + "." + rows.getString(1));
        }
      }
    }
    t = System.nanoTime();
    copy(store, schema, viaStore, size);
    double copySeconds = seconds(t);
    double btree = 0;
    double hnsw = 0;
    try (Connection c = store.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("SET maintenance_work_mem = '3GB'");
      for (String ddl : indexes) {
        t = System.nanoTime();
        s.execute(ddl);
        if (ddl.contains("hnsw")) {
          hnsw += seconds(t);
        } else {
          btree += seconds(t);
        }
      }
      t = System.nanoTime();
      s.execute("VACUUM ANALYZE " + schema + ".vector_memory");
      btree += seconds(t);
    }
    report(
        String.format(
            Locale.ROOT,
            "- load: %,d more records by COPY with secondary indexes dropped: %.0f s (%,.0f"
                + " records/s); btree+GIN indexes and VACUUM ANALYZE %.0f s; HNSW index build"
                + " (m=%d, ef_construction=%d, maintenance_work_mem=3GB) %.0f s",
            size - viaStore,
            copySeconds,
            (size - viaStore) / copySeconds,
            btree,
            PgVectorSettings.DEFAULT_HNSW_M,
            PgVectorSettings.DEFAULT_HNSW_EF_CONSTRUCTION,
            hnsw));
  }

  private static boolean rawLoaded(PgVectorMemoryStore store, String schema, int size)
      throws SQLException {
    return "t"
        .equals(
            single(
                store,
                "SELECT to_regclass('"
                    + schema
                    + ".raw_memory') IS NOT NULL AND (SELECT count(*) FROM "
                    + schema
                    + ".raw_memory) = "
                    + size));
  }

  /**
   * The baseline: the same vectors in a plain pgvector table {@code (id, owner, embedding)} with an
   * owner index, loaded by one {@code COPY} (text format) with its indexes live; the time is
   * reported beside the store's load.
   */
  private void loadRaw(PgVectorMemoryStore store, String schema, int size) throws SQLException {
    String table = schema + ".raw_memory";
    execute(store, "DROP TABLE IF EXISTS " + table);
    execute(
        store,
        "CREATE TABLE "
            + table
            + " (id text PRIMARY KEY, owner text, embedding vector("
            + DIMENSION
            + "))");
    execute(store, "CREATE INDEX raw_memory_owner_idx ON " + table + " (owner)");
    long t = System.nanoTime();
    try (Connection c = store.dataSource().getConnection()) {
      CopyIn copy =
          c.unwrap(PGConnection.class)
              .getCopyAPI()
              .copyIn("COPY " + table + " (id, owner, embedding) FROM STDIN");
      StringBuilder chunk = new StringBuilder(1 << 20);
      for (int i = 0; i < size; i++) {
        int owner = owner(i);
        chunk.append('m').append(i).append('\t');
        chunk.append(owner < 0 ? "\\N" : "user:" + owner).append('\t');
        chunk.append(PgVectors.literal(vectors.record(i))).append('\n');
        if (chunk.length() > (1 << 20) - 16384 || i == size - 1) {
          byte[] bytes = chunk.toString().getBytes(StandardCharsets.UTF_8);
          copy.writeToCopy(bytes, 0, bytes.length);
          chunk.setLength(0);
        }
      }
      copy.endCopy();
    }
    double seconds = seconds(t);
    execute(store, "VACUUM ANALYZE " + table);
    report(
        String.format(
            Locale.ROOT,
            "- load, baseline: %,d rows (id, owner, embedding) by one COPY into a plain pgvector"
                + " table with its primary key and owner index: **%.1f s** (%,.0f rows/s)",
            size,
            seconds,
            size / seconds));
  }

  /**
   * What an ANN index adds to the baseline's load: the store's HNSW index (cosine, same m and
   * ef_construction) built on the loaded plain table, as pgvector advises for bulk loads (load
   * first, index after); dropped again.
   */
  private void rawHnswBuild(PgVectorMemoryStore store, String schema) throws SQLException {
    try (Connection c = store.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("SET maintenance_work_mem = '1GB'");
      long t = System.nanoTime();
      s.execute(
          "CREATE INDEX raw_memory_hnsw ON "
              + schema
              + ".raw_memory USING hnsw (embedding vector_cosine_ops) WITH (m = "
              + PgVectorSettings.DEFAULT_HNSW_M
              + ", ef_construction = "
              + PgVectorSettings.DEFAULT_HNSW_EF_CONSTRUCTION
              + ")");
      double seconds = seconds(t);
      s.execute("DROP INDEX " + schema + ".raw_memory_hnsw");
      report(
          String.format(
              Locale.ROOT,
              "- baseline with an ANN index: the store's HNSW index (m=%d, ef_construction=%d)"
                  + " built on the loaded plain table (maintenance_work_mem 1GB): **%.1f s** more;"
                  + " load average %s",
              PgVectorSettings.DEFAULT_HNSW_M,
              PgVectorSettings.DEFAULT_HNSW_EF_CONSTRUCTION,
              seconds,
              loadAverage()));
    }
  }

  private void copy(PgVectorMemoryStore store, String schema, int from, int to)
      throws SQLException {
    try (Connection c = store.dataSource().getConnection()) {
      CopyIn copy =
          c.unwrap(PGConnection.class)
              .getCopyAPI()
              .copyIn(
                  "COPY "
                      + schema
                      + ".vector_memory (id, content, metadata, embedding, agent, owner, scope,"
                      + " status, type, conversation, turn_id, created_at) FROM STDIN");
      StringBuilder line = new StringBuilder(8192);
      StringBuilder chunk = new StringBuilder(1 << 20);
      for (int i = from; i < to; i++) {
        MemoryRecord r = record(i);
        line.setLength(0);
        line.append(r.id()).append('\t').append(r.text()).append('\t');
        line.append(json(r)).append('\t');
        float[] v = vectors.record(i);
        line.append('[');
        for (int d = 0; d < v.length; d++) {
          line.append(d == 0 ? "" : ",").append(v[d]);
        }
        line.append("]\t").append(r.agent().value()).append('\t');
        line.append(r.owner() == null ? "\\N" : r.owner().value()).append('\t');
        line.append(r.scope().name()).append('\t').append(r.status().name()).append('\t');
        line.append(r.type()).append('\t').append(r.conversation()).append('\t');
        line.append(r.turn()).append('\t');
        line.append(LocalDateTime.ofInstant(r.createdAt(), ZoneOffset.UTC).format(PG_TIME));
        line.append("+00\n");
        chunk.append(line);
        if (chunk.length() > (1 << 20) - 16384 || i == to - 1) {
          byte[] bytes = chunk.toString().getBytes(StandardCharsets.UTF_8);
          copy.writeToCopy(bytes, 0, bytes.length);
          chunk.setLength(0);
        }
      }
      copy.endCopy();
    }
  }

  private static String json(MemoryRecord r) {
    StringBuilder json = new StringBuilder("{");
    r.metadata()
        .forEach(
            (k, v) -> {
              if (json.length() > 1) {
                json.append(',');
              }
              json.append('"').append(k).append("\":");
              json.append(v instanceof Number ? v.toString() : "\"" + v + "\"");
            });
    return json.append('}').toString();
  }

  // ---- measurements ---------------------------------------------------------------------------

  private static Filter.Expression prefetch(int owner) {
    return MemoryFilters.and(
        MemoryFilters.visibleTo(AGENT, OwnerKey.of("user:" + owner)),
        MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name()));
  }

  private List<String> exactTop(float[] all, float[] query, List<Integer> candidates, int k) {
    int n = candidates.size();
    double[] scores = new double[n];
    Integer[] order = new Integer[n];
    for (int c = 0; c < n; c++) {
      int i = candidates.get(c);
      double dot = 0;
      int base = i * DIMENSION;
      for (int d = 0; d < DIMENSION; d++) {
        dot += (double) query[d] * all[base + d];
      }
      scores[c] = dot;
      order[c] = c;
    }
    Arrays.sort(order, (a, b) -> Double.compare(scores[b], scores[a]));
    List<String> ids = new ArrayList<>(k);
    for (int c = 0; c < Math.min(k, n); c++) {
      ids.add("m" + candidates.get(order[c]));
    }
    return ids;
  }

  private static List<Integer> visible(List<List<Integer>> byOwner, List<Integer> shared, int o) {
    List<Integer> candidates = new ArrayList<>(byOwner.get(o));
    candidates.addAll(shared);
    return candidates;
  }

  /** The store's owner-filtered search: latency over runs and recall@5 against exact search. */
  private void filtered(
      PgVectorMemoryStore store,
      String schema,
      float[] all,
      List<List<Integer>> byOwner,
      List<Integer> shared)
      throws SQLException {
    // JIT warm-up, long enough on a busy machine
    for (int w = 0; w < 2000; w++) {
      store.vectorSearch(vectors.query(w), prefetch(w % owners), 5, -1);
    }
    String rawSql =
        "SELECT id FROM " + schema + ".raw_memory WHERE owner = ? ORDER BY embedding <#> ? LIMIT 5";
    try (Connection raw = store.dataSource().getConnection();
        PreparedStatement rawQuery = raw.prepareStatement(rawSql)) {
      try (Connection rawBinary = store.dataSource().getConnection();
          PreparedStatement rawBinaryQuery = rawBinary.prepareStatement(rawSql)) {
        // the vector in text on the first (a pooled connection the store used sends it in
        // binary), in binary on the second, as the store sends it
        BaseConnection text = raw.unwrap(BaseConnection.class);
        text.getQueryExecutor().removeBinarySendOid(text.getTypeInfo().getPGType("vector"));
        BaseConnection base = rawBinary.unwrap(BaseConnection.class);
        base.getQueryExecutor().addBinarySendOid(base.getTypeInfo().getPGType("vector"));
        for (int w = 0; w < 2000; w++) {
          rawSearch(rawQuery, w % owners, vectors.query(w));
          rawSearch(rawBinaryQuery, w % owners, vectors.query(w));
        }
        filteredRuns(store, rawQuery, rawBinaryQuery, all, byOwner, shared);
      }
    }
  }

  private static List<String> rawSearch(PreparedStatement rawQuery, int owner, float[] query)
      throws SQLException {
    rawQuery.setString(1, "user:" + owner);
    rawQuery.setObject(2, PgVectors.parameter(query));
    List<String> ids = new ArrayList<>(5);
    try (ResultSet rows = rawQuery.executeQuery()) {
      while (rows.next()) {
        ids.add(rows.getString(1));
      }
    }
    return ids;
  }

  private void filteredRuns(
      PgVectorMemoryStore store,
      PreparedStatement rawQuery,
      PreparedStatement rawBinaryQuery,
      float[] all,
      List<List<Integer>> byOwner,
      List<Integer> shared)
      throws SQLException {
    List<Double> p50s = new ArrayList<>();
    List<Double> p99s = new ArrayList<>();
    List<Double> means = new ArrayList<>();
    List<Double> rawP50s = new ArrayList<>();
    List<Double> rawP99s = new ArrayList<>();
    List<Double> binaryP50s = new ArrayList<>();
    List<Double> binaryP99s = new ArrayList<>();
    long found = 0;
    long expected = 0;
    for (int run = 0; run < runs; run++) {
      Random random = new Random(run);
      int[] queryOwners = new int[queries];
      List<float[]> queryVectors = new ArrayList<>(queries);
      List<List<Document>> results = new ArrayList<>(queries);
      double[] latencies = new double[queries];
      for (int q = 0; q < queries; q++) {
        queryOwners[q] = random.nextInt(owners);
        queryVectors.add(vectors.query(run * 100_000L + q));
      }
      // the store and the two baselines take turns query by query, so that all three see the
      // same moments of a busy machine; each baseline a third of the queries further on, so that
      // none asks right after another asked the same
      double[] rawLatencies = new double[queries];
      double[] binaryLatencies = new double[queries];
      for (int q = 0; q < queries; q++) {
        long t = System.nanoTime();
        results.add(store.vectorSearch(queryVectors.get(q), prefetch(queryOwners[q]), 5, -1));
        latencies[q] = (System.nanoTime() - t) / 1e6;
        int r = (q + queries / 3) % queries;
        t = System.nanoTime();
        rawSearch(rawQuery, queryOwners[r], queryVectors.get(r));
        rawLatencies[q] = (System.nanoTime() - t) / 1e6;
        int b = (q + 2 * queries / 3) % queries;
        t = System.nanoTime();
        rawSearch(rawBinaryQuery, queryOwners[b], queryVectors.get(b));
        binaryLatencies[q] = (System.nanoTime() - t) / 1e6;
      }
      Arrays.sort(rawLatencies);
      rawP50s.add(percentile(rawLatencies, 50));
      rawP99s.add(percentile(rawLatencies, 99));
      Arrays.sort(binaryLatencies);
      binaryP50s.add(percentile(binaryLatencies, 50));
      binaryP99s.add(percentile(binaryLatencies, 99));
      // ground truth after the timed loop, so it does not disturb the timings
      for (int q = 0; q < queries; q++) {
        List<String> exact =
            exactTop(all, queryVectors.get(q), visible(byOwner, shared, queryOwners[q]), 5);
        expected += exact.size();
        found += results.get(q).stream().filter(h -> exact.contains(h.getId())).count();
      }
      Arrays.sort(latencies);
      p50s.add(percentile(latencies, 50));
      p99s.add(percentile(latencies, 99));
      means.add(Arrays.stream(latencies).average().orElse(0));
    }
    int perOwner = (int) byOwner.stream().mapToInt(List::size).average().orElse(0) + shared.size();
    report(
        String.format(
            Locale.ROOT,
            "- **owner-filtered top-5 through the store** (prefetch filter: visibleTo(agent, owner)"
                + " AND status = ACTIVE, ~%d visible records per owner, %d queries x %d runs):"
                + " **p50 %.2f ms, p99 %.2f ms** (mean %.2f; per-run p50 %s, p99 %s);"
                + " **recall@5 vs exact %.4f**",
            perOwner,
            queries,
            runs,
            median(p50s),
            median(p99s),
            median(means),
            format(p50s),
            format(p99s),
            (double) found / expected));
    long rawRows = 0;
    for (int i = 0; i < all.length / DIMENSION; i++) {
      rawRows += owner(i) >= 0 ? 1 : 0;
    }
    report(
        String.format(
            Locale.ROOT,
            "- **baseline, same queries in the same runs: raw pgvector** (`SELECT id FROM raw_memory"
                + " WHERE owner = ? ORDER BY embedding <#> ? LIMIT 5`, ~%d rows per owner):"
                + " **p50 %.2f ms, p99 %.2f ms** (per-run p50 %s, p99 %s); store ÷ raw: p50"
                + " %.2f x, p99 %.2f x",
            rawRows / owners,
            median(rawP50s),
            median(rawP99s),
            format(rawP50s),
            format(rawP99s),
            median(p50s) / median(rawP50s),
            median(p99s) / median(rawP99s)));
    report(
        String.format(
            Locale.ROOT,
            "- baseline with the query vector sent in binary (as the store sends it): p50 %.2f ms,"
                + " p99 %.2f ms (per-run p50 %s, p99 %s); store ÷ this: p50 %.2f x, p99 %.2f x",
            median(binaryP50s),
            median(binaryP99s),
            format(binaryP50s),
            format(binaryP99s),
            median(p50s) / median(binaryP50s),
            median(p99s) / median(binaryP99s)));
  }

  /** The same query under other plans, on raw SQL, to show why the store plans as it does. */
  private void planVariants(
      PgVectorMemoryStore store,
      String schema,
      float[] all,
      List<List<Integer>> byOwner,
      List<Integer> shared)
      throws SQLException {
    String table = schema + ".vector_memory";
    String columns =
        "((agent = ? AND ((scope = 'PERSONAL' AND owner = ?) OR scope = 'TEAM'))"
            + " OR scope = 'GLOBAL') AND status = 'ACTIVE'";
    String json =
        "metadata @@ ('($.agent == \"agent-a\" && (($.scope == \"PERSONAL\" && $.owner == \"'"
            + " || ? || '\") || $.scope == \"TEAM\") || $.scope == \"GLOBAL\") && $.status =="
            + " \"ACTIVE\"')::jsonpath";
    record Variant(String name, String settings, String sql, boolean json) {}
    List<Variant> variants =
        List.of(
            new Variant(
                "columns, planner's choice, iterative scan off (ef_search 40)",
                "SET hnsw.iterative_scan = off; SET hnsw.ef_search = 40",
                "SELECT id FROM "
                    + table
                    + " WHERE "
                    + columns
                    + " ORDER BY embedding <=> ?::vector LIMIT 5",
                false),
            new Variant(
                "columns, planner's choice, iterative_scan = relaxed_order (ef_search 100)",
                "SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = 100",
                "SELECT id FROM "
                    + table
                    + " WHERE "
                    + columns
                    + " ORDER BY embedding <=> ?::vector LIMIT 5",
                false),
            new Variant(
                "columns, HNSW order forced (enable_sort = off), iterative_scan = relaxed_order",
                "SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = 100;"
                    + " SET enable_sort = off",
                "SELECT id FROM "
                    + table
                    + " WHERE "
                    + columns
                    + " ORDER BY embedding <=> ?::vector LIMIT 5",
                false),
            new Variant(
                "Spring AI style: JSON metadata filter after HNSW (ef_search 40)",
                "SET hnsw.iterative_scan = off; SET hnsw.ef_search = 40",
                "SELECT id FROM "
                    + table
                    + " WHERE "
                    + json
                    + " ORDER BY embedding <=> ?::vector LIMIT 5",
                true));
    int n = Math.min(queries, 300);
    for (Variant variant : variants) {
      try (Connection c = store.dataSource().getConnection()) {
        try (Statement s = c.createStatement()) {
          s.execute(variant.settings());
        }
        double[] latencies = new double[n];
        long found = 0;
        long expected = 0;
        try (PreparedStatement q = c.prepareStatement(variant.sql())) {
          for (int w = 0; w < 300; w++) {
            bindVariant(q, variant.json(), w % owners, vectors.query(w));
            q.executeQuery().close();
          }
          Random random = new Random(7);
          int[] queryOwners = new int[n];
          List<Set<String>> results = new ArrayList<>(n);
          for (int k = 0; k < n; k++) {
            queryOwners[k] = random.nextInt(owners);
            bindVariant(q, variant.json(), queryOwners[k], vectors.query(500_000L + k));
            Set<String> ids = new HashSet<>();
            long t = System.nanoTime();
            try (ResultSet rows = q.executeQuery()) {
              while (rows.next()) {
                ids.add(rows.getString(1));
              }
            }
            latencies[k] = (System.nanoTime() - t) / 1e6;
            results.add(ids);
          }
          for (int k = 0; k < n; k++) {
            List<String> exact =
                exactTop(
                    all, vectors.query(500_000L + k), visible(byOwner, shared, queryOwners[k]), 5);
            expected += exact.size();
            found += exact.stream().filter(results.get(k)::contains).count();
          }
        } finally {
          try (Statement s = c.createStatement()) {
            s.execute(
                "RESET ALL; SET jit = off; SET hnsw.ef_search = 100;"
                    + " SET hnsw.iterative_scan = relaxed_order");
          }
        }
        Arrays.sort(latencies);
        report(
            String.format(
                Locale.ROOT,
                "- plan variant \"%s\": p50 %.2f ms, p99 %.2f ms, recall@5 %.4f (%d queries)",
                variant.name(),
                percentile(latencies, 50),
                percentile(latencies, 99),
                (double) found / expected,
                n));
      }
    }
  }

  private static void bindVariant(PreparedStatement q, boolean json, int owner, float[] query)
      throws SQLException {
    if (json) {
      q.setString(1, "user:" + owner);
      q.setObject(2, vectorParameter(query));
    } else {
      q.setString(1, AGENT.value());
      q.setString(2, "user:" + owner);
      q.setObject(3, vectorParameter(query));
    }
  }

  /**
   * Exact path vs HNSW path by how many records a filter matches ({@code owner IN (m owners)}), to
   * place {@code exact-search-limit}.
   */
  private void exactCostBySize(
      PgVectorSettings settings,
      float[] all,
      List<List<Integer>> byOwner,
      List<Integer> shared,
      int size) {
    try (PgVectorMemoryStore exact =
            PgVectorMemoryStore.open(
                settings.withExactSearchLimit(10_000_000), embedder(), false, "-");
        PgVectorMemoryStore approximate =
            PgVectorMemoryStore.open(settings.withExactSearchLimit(0), embedder(), false, "-")) {
      for (int m : new int[] {1, 3, 10, 30, 100, 300}) {
        if (m > owners || (long) m * size / owners > 100_000) {
          break; // the exact path over more than 100,000 records takes seconds a query
        }
        int n = 40;
        List<Filter.Expression> filters = new ArrayList<>();
        List<List<Integer>> candidates = new ArrayList<>();
        List<float[]> queryVectors = new ArrayList<>();
        Random random = new Random(m);
        for (int k = 0; k < n; k++) {
          List<String> chosen = new ArrayList<>();
          List<Integer> matching = new ArrayList<>();
          int first = random.nextInt(owners);
          for (int j = 0; j < m; j++) {
            int o = (first + j) % owners;
            chosen.add("user:" + o);
            matching.addAll(byOwner.get(o));
          }
          filters.add(
              MemoryFilters.and(
                  MemoryFilters.and(
                      MemoryFilters.eq(MemoryVectorStore.AGENT, AGENT.value()),
                      MemoryFilters.in(MemoryVectorStore.OWNER, chosen)),
                  MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name())));
          candidates.add(matching);
          queryVectors.add(vectors.query(700_000L + m * 1000L + k));
        }
        double[] exactMs = time(exact, filters, queryVectors, null);
        List<List<Document>> hits = new ArrayList<>();
        double[] approximateMs = time(approximate, filters, queryVectors, hits);
        long found = 0;
        long expected = 0;
        long matched = 0;
        for (int k = 0; k < n; k++) {
          matched += candidates.get(k).size();
          List<String> truth = exactTop(all, queryVectors.get(k), candidates.get(k), 5);
          expected += truth.size();
          found += hits.get(k).stream().filter(h -> truth.contains(h.getId())).count();
        }
        report(
            String.format(
                Locale.ROOT,
                "- filter matching ~%,d records (%d owners): exact path p50 %.2f / p99 %.2f ms;"
                    + " fallback path (ORDER BY distance LIMIT 4k, planner's choice, HNSW"
                    + " iterative scan) p50 %.2f / p99 %.2f ms, recall@5 %.3f",
                matched / n,
                m,
                percentile(exactMs, 50),
                percentile(exactMs, 99),
                percentile(approximateMs, 50),
                percentile(approximateMs, 99),
                (double) found / expected));
      }
    }
  }

  /** Sorted latencies of top-5 searches, after a warm-up pass over the same queries. */
  private static double[] time(
      PgVectorMemoryStore store,
      List<Filter.Expression> filters,
      List<float[]> queryVectors,
      List<List<Document>> results) {
    int n = filters.size();
    for (int k = 0; k < Math.min(n, 10); k++) {
      store.vectorSearch(queryVectors.get(k), filters.get(k), 5, -1);
    }
    double[] latencies = new double[n];
    for (int k = 0; k < n; k++) {
      long t = System.nanoTime();
      List<Document> hits = store.vectorSearch(queryVectors.get(k), filters.get(k), 5, -1);
      latencies[k] = (System.nanoTime() - t) / 1e6;
      if (results != null) {
        results.add(hits);
      }
    }
    Arrays.sort(latencies);
    return latencies;
  }

  /** Unfiltered HNSW recall@10 against exact search, by ef_search. */
  private void approximate(PgVectorMemoryStore store, String schema, int size, float[] all)
      throws SQLException {
    int n = 200;
    List<List<String>> truth = new ArrayList<>();
    List<Integer> everyone = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      everyone.add(i);
    }
    for (int k = 0; k < n; k++) {
      truth.add(exactTop(all, vectors.query(900_000L + k), everyone, 10));
    }
    for (int ef : efSearches) {
      try (Connection c = store.dataSource().getConnection()) {
        try (Statement s = c.createStatement()) {
          s.execute("SET hnsw.iterative_scan = off; SET hnsw.ef_search = " + ef);
        }
        double[] latencies = new double[n];
        long found = 0;
        try (PreparedStatement q =
            c.prepareStatement(
                "SELECT id FROM "
                    + schema
                    + ".vector_memory ORDER BY embedding <=> ?::vector LIMIT 10")) {
          for (int k = -20; k < n; k++) {
            q.setObject(1, vectorParameter(vectors.query(900_000L + Math.max(k, 0))));
            Set<String> ids = new HashSet<>();
            long t = System.nanoTime();
            try (ResultSet rows = q.executeQuery()) {
              while (rows.next()) {
                ids.add(rows.getString(1));
              }
            }
            if (k >= 0) {
              latencies[k] = (System.nanoTime() - t) / 1e6;
              found += truth.get(k).stream().filter(ids::contains).count();
            }
          }
        } finally {
          try (Statement s = c.createStatement()) {
            s.execute("SET hnsw.ef_search = 100; SET hnsw.iterative_scan = relaxed_order");
          }
        }
        Arrays.sort(latencies);
        report(
            String.format(
                Locale.ROOT,
                "- unfiltered HNSW top-10, ef_search %d: **recall@10 %.3f**, p50 %.2f ms, p99 %.2f"
                    + " ms (%d queries)",
                ef,
                (double) found / (n * 10L),
                percentile(latencies, 50),
                percentile(latencies, 99),
                n));
      }
    }
    // the store itself on an unfiltered query: the exact attempt stops at exact-search-limit and
    // hands over to HNSW
    double[] latencies = new double[n];
    long found = 0;
    for (int k = -20; k < n; k++) {
      float[] query = vectors.query(900_000L + Math.max(k, 0));
      long t = System.nanoTime();
      List<Document> hits = store.vectorSearch(query, null, 10, -1);
      if (k >= 0) {
        latencies[k] = (System.nanoTime() - t) / 1e6;
        List<String> expected = truth.get(k);
        found += hits.stream().filter(h -> expected.contains(h.getId())).count();
      }
    }
    Arrays.sort(latencies);
    report(
        String.format(
            Locale.ROOT,
            "- unfiltered top-10 through the store (a table larger than exact-search-limit goes"
                + " straight to HNSW: 40 candidates, ef_search 100): recall@10 %.3f, p50 %.2f ms,"
                + " p99 %.2f ms",
            (double) found / (n * 10L),
            percentile(latencies, 50),
            percentile(latencies, 99)));
  }

  private void explain(PgVectorMemoryStore store, String schema) throws SQLException {
    // the store's exact path for one owner's prefetch filter: one SELECT per OR branch, united
    String table = schema + ".vector_memory";
    String select =
        "(SELECT id, embedding <=> (SELECT v FROM query_vector) AS distance FROM "
            + table
            + " WHERE embedding IS NOT NULL AND (%s) LIMIT 5001)";
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement q =
            c.prepareStatement(
                "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)"
                    + " WITH query_vector AS MATERIALIZED (SELECT ?::vector AS v),"
                    + " candidates AS MATERIALIZED ("
                    + select.formatted(
                        "((agent = ? AND (scope = 'PERSONAL' AND owner = ?)) AND status ="
                            + " 'ACTIVE')")
                    + " UNION "
                    + select.formatted("((agent = ? AND scope = 'TEAM') AND status = 'ACTIVE')")
                    + " UNION "
                    + select.formatted("(scope = 'GLOBAL' AND status = 'ACTIVE')")
                    + ") SELECT id, distance FROM candidates ORDER BY distance, id LIMIT 5")) {
      q.setObject(1, vectorParameter(vectors.query(1)));
      q.setString(2, AGENT.value());
      q.setString(3, "user:17");
      q.setString(4, AGENT.value());
      StringBuilder plan = new StringBuilder();
      try (ResultSet rows = q.executeQuery()) {
        while (rows.next()) {
          plan.append("    ").append(rows.getString(1)).append('\n');
        }
      }
      report("- plan of the exact path (EXPLAIN ANALYZE, one owner):\n\n" + plan);
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static PGobject vectorParameter(float[] v) throws SQLException {
    PGobject object = new PGobject();
    object.setType("vector");
    object.setValue(PgVectors.literal(v));
    return object;
  }

  private static void execute(PgVectorMemoryStore store, String sql) throws SQLException {
    try (Connection c = store.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static String single(PgVectorMemoryStore store, String sql) throws SQLException {
    try (Connection c = store.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet row = s.executeQuery(sql)) {
      row.next();
      return row.getString(1);
    }
  }

  /** The 1/5/15-minute load averages of this machine (2 cores), for reading the figures. */
  private static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " / " + parts[1] + " / " + parts[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static double percentile(double[] sorted, double p) {
    int index = (int) Math.ceil(p / 100 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  private static double median(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return sorted.length % 2 == 1
        ? sorted[sorted.length / 2]
        : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  }

  private static String format(List<Double> values) {
    return values.stream()
        .map(v -> String.format(Locale.ROOT, "%.2f", v))
        .reduce((a, b) -> a + "/" + b)
        .orElse("");
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private void report(String line) {
    System.out.println(line);
    try {
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String[] words() {
    Random random = new Random(3);
    String[] words = new String[2000];
    for (int w = 0; w < words.length; w++) {
      StringBuilder word = new StringBuilder();
      int length = 3 + random.nextInt(7);
      for (int c = 0; c < length; c++) {
        word.append((char) ('a' + random.nextInt(26)));
      }
      words[w] = word.toString();
    }
    return words;
  }
}
