package dev.memstack.vector.bench;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.TestProviderContext;
import dev.memstack.vector.VectorMemoryProviderFactory;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * The vector provider's {@code prefetch} on an embedded store holding short chat turns: {@code
 * --owners} (6) owners with {@code --turns} (500) turns each, a user message and a reply (about
 * 1,000 records per owner), queries of the same vocabulary, {@code --limit} (20) items, default
 * settings (200 candidates from each search). The embedder hashes words to fixed random vectors and
 * sums them (no model time; bag-of-words similarity, so the vector search has structure). Prints
 * the p50/p95 latency and the p50 CPU time of the calling thread of each of {@code --runs} (7) runs
 * of {@code --queries} (400) queries and their medians, and a SHA-256 digest of every answer
 * (texts, scores, metadata with the signals): two builds that rank alike print the same digest. The
 * clock is fixed, so the digest does not depend on the day. Run from {@code provider-vector}:
 *
 * <pre>
 * ../mvnw -B -q test-compile exec:java -Dexec.classpathScope=test \
 *   -Dexec.mainClass=dev.memstack.vector.bench.RecallPrefetchBenchmark
 * </pre>
 */
public final class RecallPrefetchBenchmark {

  private static final AgentId AGENT = AgentId.of("agent-a");
  private static final Instant T0 = Instant.parse("2026-01-01T09:00:00Z");
  private static final int DIMENSION = 384;
  private static final String[] NAMES = {
    "Anna", "Ben", "Carla", "Dev", "Elif", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kemal",
    "Lena"
  };
  private static final String[] PLACES = {
    "Lisbon",
    "the lake",
    "Kyoto",
    "the office",
    "grandma's",
    "the gym",
    "Berlin",
    "the market",
    "the beach",
    "Montreal",
    "the library",
    "the mountains"
  };
  private static final String[] THINGS = {
    "a new guitar", "sourdough bread", "a marathon", "the wedding", "my thesis", "a puppy",
    "the concert", "a painting class", "tax forms", "a road trip", "sushi", "the job interview",
    "a broken phone", "chess", "a birthday cake", "the garden"
  };
  private static final String[] USER = {
    "I went to %2$s with %1$s yesterday and we talked about %3$s.",
    "%1$s finally finished %3$s, can you believe it?",
    "Honestly I'm nervous about %3$s next week.",
    "We're planning %3$s at %2$s in the spring.",
    "Do you remember when %1$s got lost in %2$s?",
    "I spent the whole weekend on %3$s and it was worth it.",
    "My sister and %1$s argued about %3$s again.",
    "I think I'll move to %2$s if the new job works out."
  };
  private static final String[] REPLY = {
    "That sounds like a lot of fun! How did %1$s feel about it?",
    "Oh no, I hope %3$s turns out fine.",
    "%2$s is lovely this time of year.",
    "Wow, good for %1$s. What's next after %3$s?",
    "Haha, that's so typical. Did you sort it out?",
    "I'd love to hear more about %3$s."
  };
  private static final String[] QUESTIONS = {
    "What did %1$s say about %3$s?",
    "When did we go to %2$s?",
    "Who was nervous about %3$s?",
    "What happened with %1$s at %2$s?",
    "Where does my sister want to move?",
    "what about %3$s"
  };

  private RecallPrefetchBenchmark() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new TreeMap<>();
    for (String arg : args) {
      String[] kv = arg.replaceFirst("^--", "").split("=", 2);
      options.put(kv[0], kv.length > 1 ? kv[1] : "");
    }
    int owners = Integer.parseInt(options.getOrDefault("owners", "6"));
    int turns = Integer.parseInt(options.getOrDefault("turns", "500"));
    int limit = Integer.parseInt(options.getOrDefault("limit", "20"));
    int runs = Integer.parseInt(options.getOrDefault("runs", "7"));
    int queries = Integer.parseInt(options.getOrDefault("queries", "400"));
    Path dir = Files.createTempDirectory("recall-prefetch-bench");
    Clock clock = Clock.fixed(T0.plusSeconds(86_400L * 60), ZoneOffset.UTC);
    TestProviderContext context =
        TestProviderContext.builder()
            .instanceId("vector")
            .dataDir(dir)
            .config(Map.of("store", "embedded"))
            .embedder(new WordHashEmbedder())
            .clock(clock)
            .build();
    try (MemoryProvider provider = new VectorMemoryProviderFactory().create(context)) {
      Random random = new Random(1);
      for (int o = 0; o < owners; o++) {
        List<Turn> batch = new ArrayList<>();
        for (int t = 0; t < turns; t++) {
          batch.add(
              new Turn(
                  "o" + o + "-t" + t,
                  AGENT,
                  owner(o),
                  "conv-" + o + "-" + (t / 50),
                  fill(USER, random),
                  fill(REPLY, random),
                  TriggerSource.API,
                  T0.plusSeconds(3_600L * t)));
        }
        provider.syncTurns(batch);
      }
      Thread.sleep(1_500); // batch writes become searchable within a second
      List<RecallRequest> requests = new ArrayList<>();
      for (int q = 0; q < queries; q++) {
        requests.add(
            new RecallRequest(
                AGENT,
                owner(q % owners),
                null,
                fill(QUESTIONS, random),
                limit,
                Instant.now().plusSeconds(3_600)));
      }
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      int items = 0;
      for (RecallRequest request : requests) { // warm-up, and the digest of every answer
        Recall recall = provider.prefetch(request);
        for (RecallItem item : recall.items()) {
          items++;
          String line = item.text() + "|" + item.score() + "|" + new TreeMap<>(item.metadata());
          digest.update(line.getBytes(StandardCharsets.UTF_8));
        }
      }
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      double[] p50 = new double[runs];
      double[] p95 = new double[runs];
      double[] cpu50 = new double[runs];
      for (int run = 0; run < runs; run++) {
        double[] millis = new double[queries];
        double[] cpu = new double[queries];
        for (int q = 0; q < queries; q++) {
          long cpuStart = threads.getCurrentThreadCpuTime();
          long start = System.nanoTime();
          provider.prefetch(requests.get(q));
          millis[q] = (System.nanoTime() - start) / 1e6;
          cpu[q] = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e6;
        }
        Arrays.sort(millis);
        Arrays.sort(cpu);
        p50[run] = at(millis, 0.50);
        p95[run] = at(millis, 0.95);
        cpu50[run] = at(cpu, 0.50);
        System.out.printf(
            Locale.ROOT,
            "run %d: p50 %.2f ms, p95 %.2f ms, CPU p50 %.2f ms%n",
            run,
            p50[run],
            p95[run],
            cpu50[run]);
      }
      Arrays.sort(p50);
      Arrays.sort(p95);
      Arrays.sort(cpu50);
      System.out.printf(
          Locale.ROOT,
          "prefetch (%d owners x %d turns, limit %d, %d queries x %d runs): median p50 %.2f ms,"
              + " median p95 %.2f ms, median CPU p50 %.2f ms; %d items, digest %s%n",
          owners,
          turns,
          limit,
          queries,
          runs,
          p50[runs / 2],
          p95[runs / 2],
          cpu50[runs / 2],
          items,
          HexFormat.of().formatHex(digest.digest()).substring(0, 16));
    }
  }

  private static double at(double[] sorted, double quantile) {
    return sorted[(int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)];
  }

  private static OwnerKey owner(int o) {
    return OwnerKey.of("user:" + o);
  }

  private static String fill(String[] templates, Random random) {
    return String.format(
        Locale.ROOT,
        templates[random.nextInt(templates.length)],
        NAMES[random.nextInt(NAMES.length)],
        PLACES[random.nextInt(PLACES.length)],
        THINGS[random.nextInt(THINGS.length)]);
  }

  /** The sum of a fixed random vector per lower-cased word. */
  private static final class WordHashEmbedder implements Embedder {
    @Override
    public String modelId() {
      return "word-hash-384";
    }

    @Override
    public int dimension() {
      return DIMENSION;
    }

    @Override
    public List<float[]> embed(List<String> texts, Kind kind) {
      List<float[]> out = new ArrayList<>(texts.size());
      for (String text : texts) {
        float[] vector = new float[DIMENSION];
        vector[0] = 1e-3f; // never all zero
        for (String word : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
          SplittableRandom random = new SplittableRandom(word.hashCode());
          for (int i = 0; i < DIMENSION; i++) {
            vector[i] += (float) random.nextGaussian();
          }
        }
        out.add(vector);
      }
      return out;
    }
  }
}
