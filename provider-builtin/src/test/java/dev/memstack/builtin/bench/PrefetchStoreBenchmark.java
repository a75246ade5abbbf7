package dev.memstack.builtin.bench;

import dev.memstack.builtin.BuiltinMemoryProviderFactory;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.TestProviderContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * {@code prefetch} and {@code systemPromptBlock} of the builtin provider end to end on each store:
 * {@code owners} owners with {@code turns} turns each (one daily note per ten turns), written
 * through {@code syncTurns}; then {@code queries} prefetches (three words of one of the owner's own
 * turns) and as many system prompt blocks. Prints p50 / p95 in ms per store.
 *
 * <p>Run like {@link KeywordSearchBenchmark} with main class {@code
 * dev.memstack.builtin.bench.PrefetchStoreBenchmark} and arguments {@code 50 100 500}.
 */
public final class PrefetchStoreBenchmark {

  private static final AgentId AGENT = AgentId.of("a1");

  private PrefetchStoreBenchmark() {}

  public static void main(String[] args) throws Exception {
    int owners = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    int turns = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int queries = args.length > 2 ? Integer.parseInt(args[2]) : 500;
    String url = System.getenv("MEMSTACK_PG_URL");
    if (url == null || url.isBlank()) {
      throw new IllegalStateException("set MEMSTACK_PG_URL (and MEMSTACK_PG_USER/PASSWORD)");
    }
    String schema = "bench_prefetch_" + System.currentTimeMillis();
    Map<String, String> pg = new LinkedHashMap<>();
    pg.put("store", "postgres");
    pg.put("jdbc-url", url);
    String user = System.getenv("MEMSTACK_PG_USER");
    if (user != null && !user.isBlank()) {
      pg.put("username", user);
    }
    pg.put("schema", schema);
    pg.put("prompt-poll-interval", "0s");
    System.out.println("| store | prefetch p50 / p95 ms | systemPromptBlock p50 / p95 ms |");
    try {
      for (Map<String, String> config : List.of(Map.<String, String>of(), pg)) {
        run(config.isEmpty() ? "files" : "postgres", config, owners, turns, queries);
      }
    } finally {
      String password = System.getenv("MEMSTACK_PG_PASSWORD");
      try (var connection =
              new org.postgresql.ds.PGSimpleDataSource() {
                {
                  setUrl(url);
                  if (user != null && !user.isBlank()) {
                    setUser(user);
                  }
                  if (password != null && !password.isBlank()) {
                    setPassword(password);
                  }
                }
              }.getConnection();
          var statement = connection.createStatement()) {
        statement.execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
      }
    }
  }

  private static void run(
      String name, Map<String, String> config, int owners, int turns, int queries)
      throws Exception {
    Path dir = Files.createTempDirectory("memstack-prefetch-bench");
    MutableClock clock = MutableClock.at(Instant.parse("2026-01-01T09:00:00Z"));
    TestProviderContext context =
        TestProviderContext.builder()
            .instanceId("builtin")
            .config(config)
            .dataDir(dir)
            .clock(clock)
            .build();
    Random random = new Random(11);
    String[] words = KeywordWords.WORDS;
    List<List<String>> said = new ArrayList<>();
    try (MemoryProvider provider = new BuiltinMemoryProviderFactory().create(context)) {
      for (int o = 0; o < owners; o++) {
        said.add(new ArrayList<>());
      }
      for (int t = 0; t < turns; t++) {
        List<Turn> batch = new ArrayList<>();
        for (int o = 0; o < owners; o++) {
          StringBuilder text = new StringBuilder();
          for (int w = 0; w < 12; w++) {
            text.append(words[random.nextInt(words.length)]).append(' ');
          }
          said.get(o).add(text.toString());
          batch.add(
              new Turn(
                  "t" + t + "-" + o,
                  AGENT,
                  OwnerKey.of("api:owner-" + o),
                  "c1",
                  text.toString().strip(),
                  "Noted.",
                  TriggerSource.API,
                  clock.instant()));
        }
        provider.syncTurns(batch);
        if (t % 10 == 9) {
          clock.advance(Duration.ofDays(1));
        }
      }
      double[] prefetch = new double[queries];
      double[] block = new double[queries];
      for (int q = -50; q < queries; q++) {
        int owner = random.nextInt(owners);
        List<String> own = said.get(owner);
        String[] turn = own.get(random.nextInt(own.size())).split(" ");
        String query = turn[0] + " " + turn[3] + " " + turn[7];
        long t0 = System.nanoTime();
        provider.prefetch(
            new RecallRequest(
                AGENT,
                OwnerKey.of("api:owner-" + owner),
                "c1",
                query,
                10,
                Instant.now().plusSeconds(10)));
        long t1 = System.nanoTime();
        provider.systemPromptBlock(AGENT);
        long t2 = System.nanoTime();
        if (q >= 0) {
          prefetch[q] = (t1 - t0) / 1e6;
          block[q] = (t2 - t1) / 1e6;
        }
      }
      System.out.printf("| %s | %s | %s |%n", name, percentiles(prefetch), percentiles(block));
    }
  }

  private static String percentiles(double[] millis) {
    double[] sorted = millis.clone();
    Arrays.sort(sorted);
    return String.format(
        "%.2f / %.2f", sorted[sorted.length / 2], sorted[(int) Math.floor(sorted.length * 0.95)]);
  }

  /** Words for the turns. */
  private static final class KeywordWords {
    static final String[] WORDS =
        ("project meeting deadline budget design review release customer feedback server"
                + " database migration invoice travel flight hotel dinner birthday gift doctor"
                + " appointment garden recipe coffee tea running training marathon guitar piano"
                + " lesson school homework report slides presentation client contract lawyer"
                + " apartment rent moving boxes kitchen paint color blue green friday monday 手冲咖啡"
                + " 周末徒步 项目评审 生日礼物 搬家计划 吉他课程 年度预算 客户反馈")
            .split(" ");
  }
}
