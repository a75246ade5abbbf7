package dev.memstack.host.proof;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Ingest through a running host: posts {@code turns} chat turns (a user message of 8-40 words and a
 * reply of 6-30, over {@code owners} owners of one agent) from {@code clients} threads as fast as
 * the host accepts them (a 503 is waited out), then waits until every provider has received every
 * turn. Prints the acceptance rate, each provider's delivery rate (over the whole run and its
 * median over 10-second windows), the host's CPU seconds per turn, the share of the vector
 * provider's delivery time spent embedding (from the host's metrics), and the host's resident
 * memory ({@code VmRSS}, {@code VmHWM}) and heap after the load. JDK only, run as a single source
 * file by {@code scripts/ingest-bench.sh}: {@code java IngestHarness.java <baseUrl> <token>
 * <hostPid> [turns=50000] [clients=4] [owners=1000] [passages file]}, the last writing the passages
 * the providers embed, for a model-alone baseline; several hosts of one deployment as
 * comma-separated URLs and pids (the clients take them in turn, counts are summed).
 */
public final class IngestHarness {

  private static final String[] WORDS =
      ("I we you my our the a an and but so then today yesterday tomorrow last next week month"
              + " year dog greyhound cat puppy adopted retired rescue spring summer autumn winter"
              + " bake sourdough bread cake recipe tax report quarterly Friday Monday meeting moved"
              + " project deadline release sister brother mother father birthday party wedding"
              + " Berlin Paris Lisbon Tokyo flight booked train hotel coffee tea allergic peanuts"
              + " gluten prefers dark mode editor vim emacs running marathon knee hurts doctor"
              + " appointment Tuesday budget vacation Portugal beach daughter son school piano"
              + " violin lessons garden tomatoes basil roses apartment rent moving boxes car"
              + " bicycle commute office remote manager promotion salary interview Python Java"
              + " database migration bug fix deploy weekend hiking mountains lake camping tent"
              + " book novel reading club movie series episode podcast guitar concert tickets")
          .split(" ");

  private static final String[] REPLIES =
      ("Noted that sounds lovely good luck with it I will remember this for next time thanks for"
              + " telling me shall I set a reminder that is a great plan let me know how it goes"
              + " here is a short summary of what you said")
          .split(" ");

  private static final Pattern PROVIDER =
      Pattern.compile(
          "\\{[^{}]*\"id\"\\s*:\\s*\"([^\"]+)\"[^{}]*\\}", Pattern.DOTALL); // one provider object

  private IngestHarness() {}

  /** Offsets the texts' random seed (-Dingest.seed=N): a warm-up posts texts of its own. */
  private static final long SEED = Long.getLong("ingest.seed", 0);

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println(
          "usage: IngestHarness <baseUrl> <token> <hostPid> [turns=50000] [clients=4]"
              + " [owners=1000]");
      System.exit(2);
    }
    // several hosts of one deployment (shared mode): comma-separated URLs and process ids; the
    // clients take the hosts in turn, and counts, metrics and CPU are summed over the hosts
    String[] bases = args[0].split(",");
    String base = bases[0];
    String token = args[1];
    long[] pids = java.util.Arrays.stream(args[2].split(",")).mapToLong(Long::parseLong).toArray();
    long pid = pids[0];
    int turns = args.length > 3 ? Integer.parseInt(args[3]) : 50_000;
    int clients = args.length > 4 ? Integer.parseInt(args[4]) : 4;
    int owners = args.length > 5 ? Integer.parseInt(args[5]) : 1000;
    // the passages the providers embed, one a line, for the model-alone baseline of the script
    java.io.PrintWriter passages =
        args.length > 6
            ? new java.io.PrintWriter(
                java.nio.file.Files.newBufferedWriter(java.nio.file.Path.of(args[6])))
            : null;
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    Map<String, Long> before = deliveredByProvider(http, bases, token);
    Map<String, Double> metricsBefore = metrics(http, bases, token);
    double cpuBefore = cpuSeconds(pids);
    Map<String, Double> threadsBefore = threadCpuSeconds(pids);
    long start = System.nanoTime();
    AtomicInteger next = new AtomicInteger();
    AtomicLong refused = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    CountDownLatch posted = new CountDownLatch(clients);
    String run = Long.toHexString(System.currentTimeMillis());
    for (int c = 0; c < clients; c++) {
      int client = c;
      Thread thread =
          new Thread(
              () -> {
                Random random = new Random(client * 7919L + 1 + SEED * 104729L);
                try {
                  for (int i = next.getAndIncrement(); i < turns; i = next.getAndIncrement()) {
                    String body = turnJson(random, run, i, owners, passages);
                    while (true) {
                      int status = post(http, bases[client % bases.length], token, body);
                      if (status == 202) {
                        break;
                      }
                      if (status == 503) {
                        refused.incrementAndGet();
                        Thread.sleep(200);
                        continue;
                      }
                      errors.incrementAndGet();
                      break;
                    }
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                } finally {
                  posted.countDown();
                }
              },
              "ingest-client-" + c);
      thread.start();
    }

    // delivered counts per provider, sampled every second until every provider has every turn
    Map<String, List<long[]>> samples = new LinkedHashMap<>(); // provider -> [nanos, delivered]
    double acceptSeconds = -1;
    Map<String, Double> drainedAt = new LinkedHashMap<>();
    while (true) {
      Thread.sleep(1000);
      long now = System.nanoTime();
      if (acceptSeconds < 0 && posted.getCount() == 0) {
        acceptSeconds = (now - start) / 1e9;
      }
      Map<String, Long> delivered = deliveredByProvider(http, bases, token);
      for (Map.Entry<String, Long> e : delivered.entrySet()) {
        long count = e.getValue() - before.getOrDefault(e.getKey(), 0L);
        samples.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(new long[] {now, count});
        if (count >= turns - errors.get() && !drainedAt.containsKey(e.getKey())) {
          drainedAt.put(e.getKey(), (now - start) / 1e9);
        }
      }
      if (acceptSeconds >= 0 && drainedAt.size() == delivered.size()) {
        break;
      }
    }
    if (passages != null) {
      passages.close();
    }
    double cpu = cpuSeconds(pids) - cpuBefore;
    Map<String, Double> threadsAfter = threadCpuSeconds(pids);
    double total = (System.nanoTime() - start) / 1e9;
    Map<String, Double> metricsAfter = metrics(http, bases, token);

    System.out.printf(
        Locale.ROOT,
        "%d turns from %d clients over %d owners: accepted in %.1f s (%.0f turns/s), %d refused"
            + " with 503 and retried, %d errors%n",
        turns,
        clients,
        owners,
        acceptSeconds,
        turns / acceptSeconds,
        refused.get(),
        errors.get());
    System.out.println(
        "| provider | all delivered after s | turns/s overall | median turns/s (10 s windows) |");
    System.out.println("|---|---|---|---|");
    for (Map.Entry<String, Double> e : drainedAt.entrySet()) {
      System.out.printf(
          Locale.ROOT,
          "| %s | %.1f | %.1f | %.1f |%n",
          e.getKey(),
          e.getValue(),
          turns / e.getValue(),
          medianWindowRate(samples.get(e.getKey()), turns));
    }
    double embedSeconds =
        metricsAfter.get("embedding.passage.seconds")
            - metricsBefore.get("embedding.passage.seconds");
    double embedTexts =
        metricsAfter.get("embedding.passage.texts") - metricsBefore.get("embedding.passage.texts");
    double vectorSync =
        metricsAfter.get("vector.sync.seconds") - metricsBefore.get("vector.sync.seconds");
    System.out.printf(
        Locale.ROOT,
        "host CPU: %.0f s over %.0f s (%.1f cores busy), %.1f ms CPU per turn%n",
        cpu,
        total,
        cpu / total,
        cpu * 1000 / turns);
    StringBuilder split = new StringBuilder("host CPU a turn by thread:");
    for (Map.Entry<String, Double> e : threadsAfter.entrySet()) {
      double seconds = e.getValue() - threadsBefore.getOrDefault(e.getKey(), 0.0);
      split.append(String.format(Locale.ROOT, " %s %.1f ms;", e.getKey(), seconds * 1000 / turns));
    }
    System.out.println(split.substring(0, split.length() - 1));
    System.out.printf(
        Locale.ROOT,
        "vector: %.0f s in %d sync calls (%.1f turns a call), %.0f s of it embedding %d passages"
            + " (%.0f%%; %.2f ms a passage wall, spread over the cores)%n",
        vectorSync,
        (long) (metricsAfter.get("vector.sync.calls") - metricsBefore.get("vector.sync.calls")),
        turns
            / Math.max(
                1, metricsAfter.get("vector.sync.calls") - metricsBefore.get("vector.sync.calls")),
        embedSeconds,
        (long) embedTexts,
        vectorSync > 0 ? 100 * embedSeconds / vectorSync : 0,
        embedTexts > 0 ? embedSeconds * 1000 / embedTexts : 0);
    Map<String, String> status = procStatus(pid);
    System.out.printf(
        Locale.ROOT,
        "host memory after the load: VmRSS %s, VmHWM (peak) %s, heap used %.0f MiB, non-heap %.0f"
            + " MiB%n",
        status.get("VmRSS"),
        status.get("VmHWM"),
        metricsAfter.get("heap.used") / 1048576,
        metricsAfter.get("nonheap.used") / 1048576);
    System.exit(errors.get() == 0 ? 0 : 1);
  }

  private static String turnJson(
      Random random, String run, int i, int owners, java.io.PrintWriter passages) {
    int owner = Math.floorMod(i * 7919, owners);
    String message = words(random, WORDS, 8 + random.nextInt(33));
    String reply = words(random, REPLIES, 6 + random.nextInt(25));
    if (passages != null) {
      // the vector provider embeds each message, the builtin one the daily-note entry's prose
      synchronized (passages) {
        passages.println(message);
        passages.println(reply);
        passages.println("User: " + message + "\\nAssistant: " + reply);
      }
    }
    return String.format(
        Locale.ROOT,
        "{\"ownerKey\":\"ingest:user-%d\",\"conversationId\":\"c-%d\",\"turnId\":\"ingest-%s-%d\","
            + "\"userMessage\":\"%s\",\"assistantReply\":\"%s\",\"triggerSource\":\"api\"}",
        owner,
        owner,
        run,
        i,
        message,
        reply);
  }

  private static String words(Random random, String[] vocabulary, int count) {
    StringBuilder text = new StringBuilder();
    for (int w = 0; w < count; w++) {
      if (w > 0) {
        text.append(' ');
      }
      text.append(vocabulary[random.nextInt(vocabulary.length)]);
    }
    return text.append('.').toString();
  }

  private static int post(HttpClient http, String base, String token, String body)
      throws InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + "/api/v1/agents/ingest-agent/memory/turns"))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(60))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    try {
      return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    }
  }

  private static String get(HttpClient http, String base, String token, String path)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Authorization", "Bearer " + token)
            .timeout(Duration.ofSeconds(30))
            .GET()
            .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + path + " answered " + response.statusCode());
    }
    return response.body();
  }

  private static Map<String, Long> deliveredByProvider(
      HttpClient http, String[] bases, String token) throws IOException, InterruptedException {
    Map<String, Long> sum = new LinkedHashMap<>();
    for (String one : bases) {
      deliveredByProvider(http, one, token).forEach((k, v) -> sum.merge(k, v, Long::sum));
    }
    return sum;
  }

  private static Map<String, Double> metrics(HttpClient http, String[] bases, String token)
      throws IOException, InterruptedException {
    Map<String, Double> sum = new LinkedHashMap<>();
    for (String one : bases) {
      metrics(http, one, token).forEach((k, v) -> sum.merge(k, v, Double::sum));
    }
    return sum;
  }

  private static double cpuSeconds(long[] pids) throws IOException {
    double sum = 0;
    for (long one : pids) {
      sum += cpuSeconds(one);
    }
    return sum;
  }

  private static Map<String, Long> deliveredByProvider(HttpClient http, String base, String token)
      throws IOException, InterruptedException {
    String body = get(http, base, token, "/api/v1/outbox");
    Map<String, Long> delivered = new LinkedHashMap<>();
    Matcher m = PROVIDER.matcher(body);
    while (m.find()) {
      delivered.put(m.group(1), number(m.group(), "delivered").longValue());
    }
    return delivered;
  }

  private static Map<String, Double> metrics(HttpClient http, String base, String token)
      throws IOException, InterruptedException {
    Map<String, Double> values = new LinkedHashMap<>();
    values.put(
        "embedding.passage.seconds",
        statistic(http, base, token, "memstack.embedding?tag=kind:passage", "TOTAL_TIME"));
    values.put(
        "embedding.passage.texts",
        statistic(http, base, token, "memstack.embedding.texts?tag=kind:passage", "COUNT"));
    values.put(
        "vector.sync.seconds",
        statistic(
                http,
                base,
                token,
                "memstack.provider.calls?tag=provider:vector&tag=hook:syncTurns",
                "TOTAL_TIME")
            + statistic(
                http,
                base,
                token,
                "memstack.provider.calls?tag=provider:vector&tag=hook:syncTurn",
                "TOTAL_TIME"));
    values.put(
        "vector.sync.calls",
        statistic(
                http,
                base,
                token,
                "memstack.provider.calls?tag=provider:vector&tag=hook:syncTurns",
                "COUNT")
            + statistic(
                http,
                base,
                token,
                "memstack.provider.calls?tag=provider:vector&tag=hook:syncTurn",
                "COUNT"));
    values.put("heap.used", statistic(http, base, token, "jvm.memory.used?tag=area:heap", "VALUE"));
    values.put(
        "nonheap.used", statistic(http, base, token, "jvm.memory.used?tag=area:nonheap", "VALUE"));
    return values;
  }

  /** A statistic of an actuator metric, 0 when the metric does not exist yet. */
  private static double statistic(
      HttpClient http, String base, String token, String metric, String statistic)
      throws InterruptedException {
    try {
      String body = get(http, base, token, "/actuator/metrics/" + metric);
      Matcher m =
          Pattern.compile(
                  "\"statistic\"\\s*:\\s*\""
                      + statistic
                      + "\"\\s*,\\s*\"value\"\\s*:\\s*([0-9.eE+-]+)")
              .matcher(body);
      return m.find() ? Double.parseDouble(m.group(1)) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  private static Number number(String json, String field) {
    Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*([0-9.]+)").matcher(json);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  private static double medianWindowRate(List<long[]> samples, int turns) {
    List<Double> rates = new ArrayList<>();
    long[] windowStart = samples.get(0);
    for (long[] sample : samples) {
      if (sample[0] - windowStart[0] >= 10_000_000_000L) {
        if (windowStart[1] > 0 && sample[1] < turns) { // inside the run: not the ramp, not the tail
          rates.add((sample[1] - windowStart[1]) / ((sample[0] - windowStart[0]) / 1e9));
        }
        windowStart = sample;
      }
    }
    if (rates.isEmpty()) {
      return Double.NaN;
    }
    Collections.sort(rates);
    return rates.get(rates.size() / 2);
  }

  /**
   * The host's CPU seconds so far by kind of thread, from /proc/pid/task: the JIT compilers (a cost
   * of a young JVM, not of a turn), the request threads, the delivery lanes with the embedder's
   * helper threads (the model runs on both), and the rest (GC, the stores' background threads).
   */
  private static Map<String, Double> threadCpuSeconds(long[] pids) throws IOException {
    Map<String, Double> sum = new LinkedHashMap<>();
    for (String kind : List.of("JIT compilers", "requests", "lanes and embedder", "other")) {
      sum.put(kind, 0.0);
    }
    for (long pid : pids) {
      Path tasks = Path.of("/proc/" + pid + "/task");
      try (Stream<Path> list = Files.list(tasks)) {
        for (Path task : list.toList()) {
          String stat;
          try {
            stat = Files.readString(task.resolve("stat"));
          } catch (IOException e) {
            continue; // the thread ended
          }
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          double seconds = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
          String kind =
              name.contains("CompilerThre")
                  ? "JIT compilers"
                  : name.startsWith("http-nio")
                      ? "requests"
                      : name.startsWith("memstack-outbox") || name.startsWith("memstack-embedd")
                          ? "lanes and embedder"
                          : "other";
          sum.merge(kind, seconds, Double::sum);
        }
      }
    }
    return sum;
  }

  private static double cpuSeconds(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime + stime
    return ticks / 100.0; // USER_HZ
  }

  private static Map<String, String> procStatus(long pid) throws IOException {
    Map<String, String> values = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.startsWith("Vm")) {
        values.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return values;
  }
}
