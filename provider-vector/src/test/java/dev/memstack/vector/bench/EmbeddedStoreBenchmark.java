package dev.memstack.vector.bench;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Scope;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.TestProviderContext;
import dev.memstack.vector.VectorMemoryProviderFactory;
import dev.memstack.vector.lucene.LuceneMemoryVectorStore;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * Measures the embedded Lucene store on synthetic 384-dimensional vectors ({@link MixtureVectors},
 * the same data set as the pgvector benchmark): bulk ingest through {@link
 * LuceneMemoryVectorStore#add} (1,000 records per committed batch); owner-filtered top-5 latency
 * (prefetch filter, p50/p99, medians over runs) and recall@5 against exact search; unfiltered and
 * large-filter HNSW recall@10 against exact search, once the graph the first unfiltered search asks
 * for is built (and how long that takes); turn-style writes (2 records, one commit) per second; and
 * the provider's whole {@code prefetch} (vector + BM25 + fusion; the synthetic embedder costs
 * nothing, so add the model's query time) p50/p95/p99.
 *
 * <p>Run:
 *
 * <pre>
 * cd provider-vector && MAVEN_OPTS=-Xmx6g ../mvnw -B -q test-compile exec:java \
 *   -Dexec.classpathScope=test \
 *   -Dexec.mainClass=dev.memstack.vector.bench.EmbeddedStoreBenchmark \
 *   -Dexec.args="--records=100000 --runs=3"
 * </pre>
 *
 * Options: {@code --records} (sizes, comma separated), {@code --owners} (1000), {@code --queries}
 * per run (1000), {@code --runs} (3), {@code --out} (Markdown appended to, default {@code
 * target/bench/embedded.md}), {@code --keep} (keep the index under {@code target/bench}), {@code
 * --reuse} (search the index a {@code --keep} run left instead of loading a new one; implies {@code
 * --keep}), {@code --skip} (parts left out, comma separated: {@code approximate}, {@code writes},
 * {@code prefetch}; for profiling the filtered search alone).
 */
public final class EmbeddedStoreBenchmark {

  private static final int DIMENSION = 384;
  private static final int BATCH = 1000;
  private static final AgentId AGENT = AgentId.of("agent-a");
  private static final AgentId OTHER_AGENT = AgentId.of("agent-b");
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final String[] WORDS = words();

  private final int owners;
  private final int queries;
  private final int runs;
  private final Path out;
  private final boolean keep;
  private final boolean reuse;
  private final Set<String> skip;
  private final MixtureVectors vectors = new MixtureVectors(DIMENSION, 256, 42);

  private EmbeddedStoreBenchmark(Map<String, String> options) {
    owners = Integer.parseInt(options.getOrDefault("owners", "1000"));
    queries = Integer.parseInt(options.getOrDefault("queries", "1000"));
    runs = Integer.parseInt(options.getOrDefault("runs", "3"));
    out = Path.of(options.getOrDefault("out", "target/bench/embedded.md"));
    reuse = options.containsKey("reuse");
    keep = reuse || options.containsKey("keep");
    skip = Set.of(options.getOrDefault("skip", "").split(","));
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      String a = arg.startsWith("--") ? arg.substring(2) : arg;
      int eq = a.indexOf('=');
      options.put(eq < 0 ? a : a.substring(0, eq), eq < 0 ? "" : a.substring(eq + 1));
    }
    EmbeddedStoreBenchmark benchmark = new EmbeddedStoreBenchmark(options);
    for (String size : options.getOrDefault("records", "100000").split(",")) {
      benchmark.run(Integer.parseInt(size.trim().replace("_", "")));
    }
  }

  // ---- the data set (as in the pgvector benchmark) ----------------------------------------------

  private int owner(int i) {
    return scope(i) == Scope.PERSONAL
        ? (int) Long.remainderUnsigned(MixtureVectors.mix(i * 31L + 7), owners)
        : -1;
  }

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

  private static String queryText(int j) {
    Random random = new Random(MixtureVectors.mix(j + 7_000_000_007L));
    StringBuilder text = new StringBuilder("query ").append(j).append(':');
    for (int w = 0; w < 8; w++) {
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

  /** Texts {@code memory <i>: ...} embed as record i, {@code query <j>: ...} as query j. */
  private final class BenchEmbedder implements Embedder {
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
        int at = text.indexOf("memory ");
        if (at >= 0) {
          result.add(vectors.record(number(text, at + "memory ".length())));
        } else {
          at = text.indexOf("query ");
          result.add(vectors.query(at < 0 ? text.hashCode() : number(text, at + 6)));
        }
      }
      return result;
    }

    private int number(String text, int from) {
      int end = from;
      while (end < text.length() && Character.isDigit(text.charAt(end))) {
        end++;
      }
      return Integer.parseInt(text.substring(from, end));
    }
  }

  // ---- one size ---------------------------------------------------------------------------------

  private void run(int size) throws Exception {
    Path dir = Path.of("target/bench/embedded-" + size);
    boolean reused = reuse && Files.isDirectory(dir.resolve("lucene"));
    if (!reused) {
      deleteTree(dir);
    }
    report("");
    report(
        String.format(
            Locale.ROOT,
            "### %,d records, %d owners (Lucene 9.12, HNSW M=16 beam=100, dot product on unit"
                + " vectors, Java %s, %d cores, load average at start %s)",
            size,
            owners,
            System.getProperty("java.version"),
            Runtime.getRuntime().availableProcessors(),
            loadAverage()));

    float[] all = new float[size * DIMENSION];
    List<List<Integer>> byOwner = new ArrayList<>();
    for (int o = 0; o < owners; o++) {
      byOwner.add(new ArrayList<>());
    }
    List<Integer> shared = new ArrayList<>();
    StoreEmbedder embedder = new StoreEmbedder(new BenchEmbedder(), 512);
    try (LuceneMemoryVectorStore store =
        LuceneMemoryVectorStore.open(dir.resolve("lucene"), embedder, false, "-")) {
      load(store, size, all, byOwner, shared, reused);
      filtered(store, all, byOwner, shared);
      if (!skip.contains("approximate")) {
        approximate(store, size, all);
      }
      if (!skip.contains("writes")) {
        turnWrites(store, size);
      }
    }
    if (!skip.contains("prefetch")) {
      prefetch(dir);
    }
    report("- machine load average (1/5/15 min) at the end: " + loadAverage());
    if (!keep) {
      deleteTree(dir);
    }
  }

  private void load(
      LuceneMemoryVectorStore store,
      int size,
      float[] all,
      List<List<Integer>> byOwner,
      List<Integer> shared,
      boolean reused)
      throws IOException {
    for (int i = 0; i < size; i++) {
      float[] v = vectors.record(i);
      System.arraycopy(v, 0, all, i * DIMENSION, DIMENSION);
      boolean active = status(i) == MemoryStatus.ACTIVE;
      if (active && (agent(i).equals(AGENT) || scope(i) == Scope.GLOBAL)) {
        if (scope(i) == Scope.PERSONAL) {
          byOwner.get(owner(i)).add(i);
        } else {
          shared.add(i);
        }
      }
    }
    if (reused) {
      report("- reused the index of an earlier run (" + human(du(store.root())) + ")");
      return;
    }
    long start = System.nanoTime();
    for (int from = 0; from < size; from += BATCH) {
      List<Document> batch = new ArrayList<>(BATCH);
      for (int i = from; i < Math.min(size, from + BATCH); i++) {
        batch.add(record(i).toDocument());
      }
      store.add(batch);
      if ((from / BATCH) % 100 == 99) {
        System.err.printf(
            Locale.ROOT,
            "  loaded %,d records in %.0f s%n",
            from + BATCH,
            (System.nanoTime() - start) / 1e9);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.gc();
    long heap = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
    report(
        String.format(
            Locale.ROOT,
            "- bulk ingest through `add` (batches of %d, each logged and forced to disk, index"
                + " committed every 20,000 records; synthetic embedding):"
                + " %,d records in %.1f s = **%,.0f records/s**; index on disk %s; heap after"
                + " load and GC %.0f MiB (the benchmark's own exact-search copy of the vectors is"
                + " %.0f MiB of it)",
            BATCH,
            size,
            seconds,
            size / seconds,
            human(du(store.root())),
            heap / 1048576.0,
            all.length * 4 / 1048576.0));
  }

  private static Filter.Expression prefetchFilter(int owner) {
    return MemoryFilters.and(
        MemoryFilters.visibleTo(AGENT, OwnerKey.of("user:" + owner)),
        MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name()));
  }

  private List<Integer> visible(List<List<Integer>> byOwner, List<Integer> shared, int owner) {
    List<Integer> out = new ArrayList<>(byOwner.get(owner));
    out.addAll(shared);
    return out;
  }

  private void filtered(
      MemoryVectorStore store, float[] all, List<List<Integer>> byOwner, List<Integer> shared) {
    Random random = new Random(11);
    // warm-up
    for (int q = 0; q < 300; q++) {
      store.vectorSearch(
          vectors.query(1_000_000 + q), prefetchFilter(random.nextInt(owners)), 5, -1);
    }
    double[] p50s = new double[runs];
    double[] p99s = new double[runs];
    double[] scanP50s = new double[runs];
    double[] scanP99s = new double[runs];
    double recallSum = 0;
    int recallCount = 0;
    long cpu = 0;
    for (int run = 0; run < runs; run++) {
      double[] latencies = new double[queries];
      double[] scans = new double[queries];
      for (int q = 0; q < queries; q++) {
        int owner = random.nextInt(owners);
        float[] query = vectors.query(run * queries + q);
        long cpuStart = threadCpuNanos();
        long start = System.nanoTime();
        List<Document> hits = store.vectorSearch(query, prefetchFilter(owner), 5, -1);
        latencies[q] = (System.nanoTime() - start) / 1e6;
        cpu += threadCpuNanos() - cpuStart;
        List<Integer> visible = visible(byOwner, shared, owner);
        long scanStart = System.nanoTime();
        scanned += scanTop(all, query, visible, 5)[0];
        scans[q] = (System.nanoTime() - scanStart) / 1e6;
        List<String> exact = exactTop(all, query, visible, 5);
        recallSum += overlap(hits, exact) / (double) exact.size();
        recallCount++;
      }
      Arrays.sort(latencies);
      p50s[run] = percentile(latencies, 50);
      p99s[run] = percentile(latencies, 99);
      Arrays.sort(scans);
      scanP50s[run] = percentile(scans, 50);
      scanP99s[run] = percentile(scans, 99);
    }
    int perOwner = 0;
    for (List<Integer> list : byOwner) {
      perOwner += list.size();
    }
    report(
        String.format(
            Locale.ROOT,
            "- **owner-filtered top-5** (`vectorSearch` with the prefetch filter visibleTo(agent,"
                + " owner) AND status = ACTIVE, ~%d visible records per owner, %d queries x %d"
                + " runs): **p50 %.2f ms, p99 %.2f ms** (medians over runs; per run p50 %s, p99 %s;"
                + " CPU of the calling thread %.2f ms per query), recall@5 vs exact **%.4f**",
            perOwner / owners + shared.size(),
            queries,
            runs,
            median(p50s),
            median(p99s),
            list(p50s),
            list(p99s),
            cpu / 1e6 / (runs * (double) queries),
            recallSum / recallCount));
    report(
        String.format(
            Locale.ROOT,
            "- **exact per-owner scan** in plain Java of the same visible records (the benchmark's"
                + " in-memory copy, a dot product each and a top-5, the same queries): **p50 %.3f"
                + " ms, p99 %.3f ms**; the store's p50 is **%.1f x** the scan's",
            median(scanP50s),
            median(scanP99s),
            median(p50s) / median(scanP50s)));
  }

  /** Keeps the scan's answer observable, so that the JIT cannot drop it. */
  private long scanned;

  /** The best {@code k} of {@code candidates} by dot product, by a plain loop (the baseline). */
  private static int[] scanTop(float[] all, float[] query, List<Integer> candidates, int k) {
    int[] best = new int[k];
    double[] scores = new double[k];
    Arrays.fill(scores, Double.NEGATIVE_INFINITY);
    for (int i : candidates) {
      double score = dot(all, i, query);
      if (score > scores[k - 1]) {
        int at = k - 1;
        while (at > 0 && scores[at - 1] < score) {
          scores[at] = scores[at - 1];
          best[at] = best[at - 1];
          at--;
        }
        scores[at] = score;
        best[at] = i;
      }
    }
    return best;
  }

  private void approximate(LuceneMemoryVectorStore store, int size, float[] all)
      throws InterruptedException {
    // the store makes its HNSW graph when a search first needs one: that search is exact
    long first = System.nanoTime();
    store.vectorSearch(vectors.query(4_999_999), null, 10, -1);
    double firstMs = (System.nanoTime() - first) / 1e6;
    long build = System.nanoTime();
    if (!store.awaitGraph(2, java.util.concurrent.TimeUnit.HOURS)) {
      throw new IllegalStateException("the HNSW graph was not built within two hours");
    }
    report(
        String.format(
            Locale.ROOT,
            "- HNSW graph made on demand: the first unfiltered search (exact) %.1f ms, then the"
                + " graph of %,d records built in the background in %.1f s",
            firstMs,
            size,
            (System.nanoTime() - build) / 1e9));
    int n = size >= 1_000_000 ? 50 : 200;
    List<Integer> everything = null;
    double unfiltered = 0;
    double large = 0;
    double[] latencies = new double[n];
    double[] largeLatencies = new double[n];
    Filter.Expression agentActive =
        MemoryFilters.and(
            MemoryFilters.eq(MemoryVectorStore.AGENT, AGENT.value()),
            MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name()));
    for (int q = 0; q < n; q++) {
      float[] query = vectors.query(5_000_000 + q);
      long start = System.nanoTime();
      List<Document> hits = store.vectorSearch(query, null, 10, -1);
      latencies[q] = (System.nanoTime() - start) / 1e6;
      List<String> exact = exactTopAll(all, size, query, 10, i -> true);
      unfiltered += overlap(hits, exact) / 10.0;

      start = System.nanoTime();
      List<Document> largeHits = store.vectorSearch(query, agentActive, 10, -1);
      largeLatencies[q] = (System.nanoTime() - start) / 1e6;
      List<String> largeExact =
          exactTopAll(
              all,
              size,
              query,
              10,
              i -> agent(i).equals(AGENT) && status(i) == MemoryStatus.ACTIVE);
      large += overlap(largeHits, largeExact) / 10.0;
    }
    Arrays.sort(latencies);
    Arrays.sort(largeLatencies);
    report(
        String.format(
            Locale.ROOT,
            "- **ANN recall@10 vs exact**: unfiltered HNSW **%.4f** (p50 %.2f ms); with a large"
                + " filter (agent = agent-a AND status = ACTIVE, ~85%% of records) **%.4f** (p50"
                + " %.2f ms); %d queries each",
            unfiltered / n,
            percentile(latencies, 50),
            large / n,
            percentile(largeLatencies, 50),
            n));
  }

  private void turnWrites(MemoryVectorStore store, int size) {
    int turns = 1000;
    double[] latencies = new double[turns];
    long cpuStart = processCpuNanos();
    long start = System.nanoTime();
    for (int t = 0; t < turns; t++) {
      int i = size + 2 * t;
      long s = System.nanoTime();
      store.add(List.of(record(i).toDocument(), record(i + 1).toDocument()));
      latencies[t] = (System.nanoTime() - s) / 1e6;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuMs = (processCpuNanos() - cpuStart) / 1e6 / turns;
    Arrays.sort(latencies);
    report(
        String.format(
            Locale.ROOT,
            "- turn-style writes (2 records per durable `add`, as `syncTurn` does, synthetic"
                + " embedding): **%.0f turns/s**, p50 %.2f ms, p99 %.2f ms per turn; CPU %.2f ms per"
                + " turn (all threads, merges included)",
            turns / seconds,
            percentile(latencies, 50),
            percentile(latencies, 99),
            cpuMs));
    store.delete(MemoryFilters.createdFrom(T0.plusSeconds(size)));
  }

  private void prefetch(Path dir) {
    TestProviderContext context =
        TestProviderContext.builder()
            .instanceId("vector")
            .dataDir(dir)
            .config(Map.of("store", "embedded"))
            .embedder(new BenchEmbedder())
            .build();
    Random random = new Random(5);
    try (MemoryProvider provider = new VectorMemoryProviderFactory().create(context)) {
      for (int q = 0; q < 300; q++) {
        provider.prefetch(request(random.nextInt(owners), 9_000_000 + q));
      }
      double[] p50s = new double[runs];
      double[] p95s = new double[runs];
      double[] p99s = new double[runs];
      long cpu = 0;
      for (int run = 0; run < runs; run++) {
        double[] latencies = new double[queries];
        for (int q = 0; q < queries; q++) {
          RecallRequest request = request(random.nextInt(owners), run * queries + q);
          long cpuStart = threadCpuNanos();
          long start = System.nanoTime();
          provider.prefetch(request);
          latencies[q] = (System.nanoTime() - start) / 1e6;
          cpu += threadCpuNanos() - cpuStart;
        }
        Arrays.sort(latencies);
        p50s[run] = percentile(latencies, 50);
        p95s[run] = percentile(latencies, 95);
        p99s[run] = percentile(latencies, 99);
      }
      report(
          String.format(
              Locale.ROOT,
              "- provider `prefetch` (top-5; vector top-20 + BM25 top-20 + fusion + mapping;"
                  + " synthetic query embedding ≈ 0 ms, so add the model's query time): **p50 %.2f"
                  + " ms, p95 %.2f ms, p99 %.2f ms** (medians over %d runs of %d); CPU of the calling"
                  + " thread %.2f ms per call",
              median(p50s),
              median(p95s),
              median(p99s),
              runs,
              queries,
              cpu / 1e6 / (runs * (double) queries)));

      int turns = 1000;
      long cpuStart = processCpuNanos();
      long start = System.nanoTime();
      for (int t = 0; t < turns; t++) {
        int i = 50_000_000 + 2 * t;
        provider.syncTurn(
            new Turn(
                "bench-turn-" + t,
                AGENT,
                OwnerKey.of("user:" + random.nextInt(owners)),
                "bench",
                text(i),
                text(i + 1),
                TriggerSource.API,
                Instant.now()));
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      report(
          String.format(
              Locale.ROOT,
              "- provider `syncTurn` (capture=exchange: 2 records, redelivery check, one durable"
                  + " `add`; synthetic embedding): **%.0f turns/s** (%d turns); CPU %.2f ms per turn",
              turns / seconds,
              turns,
              (processCpuNanos() - cpuStart) / 1e6 / turns));
    }
  }

  private RecallRequest request(int owner, int j) {
    return new RecallRequest(
        AGENT, OwnerKey.of("user:" + owner), null, queryText(j), 5, Instant.now().plusSeconds(10));
  }

  // ---- exact search -----------------------------------------------------------------------------

  private List<String> exactTop(float[] all, float[] query, List<Integer> candidates, int k) {
    return candidates.stream()
        .sorted(Comparator.comparingDouble((Integer i) -> -dot(all, i, query)))
        .limit(k)
        .map(i -> "m" + i)
        .toList();
  }

  private interface IntPredicate {
    boolean test(int i);
  }

  private List<String> exactTopAll(
      float[] all, int size, float[] query, int k, IntPredicate accept) {
    List<Integer> accepted = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      if (accept.test(i)) {
        accepted.add(i);
      }
    }
    List<String> out = new ArrayList<>();
    for (int best : scanTop(all, query, accepted, k)) {
      out.add("m" + best);
    }
    return out;
  }

  private static double dot(float[] all, int i, float[] query) {
    double sum = 0;
    int base = i * DIMENSION;
    for (int d = 0; d < DIMENSION; d++) {
      sum += all[base + d] * query[d];
    }
    return sum;
  }

  private static int overlap(List<Document> hits, List<String> exact) {
    Set<String> ids = new HashSet<>();
    hits.forEach(d -> ids.add(d.getId()));
    int n = 0;
    for (String id : exact) {
      if (ids.contains(id)) {
        n++;
      }
    }
    return n;
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private static double percentile(double[] sorted, int p) {
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  private static double median(double[] values) {
    double[] copy = values.clone();
    Arrays.sort(copy);
    return copy[copy.length / 2];
  }

  private static String list(double[] values) {
    StringBuilder out = new StringBuilder();
    for (double v : values) {
      out.append(out.length() == 0 ? "" : "/").append(String.format(Locale.ROOT, "%.2f", v));
    }
    return out.toString();
  }

  private void report(String line) throws RuntimeException {
    System.out.println(line);
    try {
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(
          out,
          line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** CPU time of the calling thread, in nanoseconds (searches run on the caller's thread). */
  private static long threadCpuNanos() {
    return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  /** CPU time of the whole process (all threads: merges too), in nanoseconds. */
  private static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean hotspot) {
      return hotspot.getProcessCpuTime();
    }
    return 0;
  }

  /** The 1, 5 and 15 minute load averages (Linux), to judge how busy the shared machine was. */
  private static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + "/" + parts[1] + "/" + parts[2];
    } catch (IOException | RuntimeException e) {
      return "n/a";
    }
  }

  private static long du(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      long total = 0;
      for (Path p : files.toList()) {
        if (Files.isRegularFile(p)) {
          total += Files.size(p);
        }
      }
      return total;
    }
  }

  private static String human(long bytes) {
    return bytes >= 1L << 30
        ? String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30))
        : String.format(Locale.ROOT, "%.0f MiB", bytes / (double) (1L << 20));
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static String[] words() {
    Random random = new Random(3);
    String consonants = "bcdfghklmnprstvz";
    String vowels = "aeiou";
    String[] words = new String[5000];
    for (int w = 0; w < words.length; w++) {
      StringBuilder word = new StringBuilder();
      int syllables = 2 + random.nextInt(2);
      for (int s = 0; s < syllables; s++) {
        word.append(consonants.charAt(random.nextInt(consonants.length())));
        word.append(vowels.charAt(random.nextInt(vowels.length())));
      }
      words[w] = word.toString();
    }
    return words;
  }
}
