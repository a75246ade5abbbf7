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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The accept path of {@code POST .../memory/turns} as conversations grow: one client posts {@code
 * depth} turns into one conversation of each of {@code owners} owners, round by round (every
 * owner's turn 1, then every owner's turn 2, ...), and prints the latency p50 / p90 / p99 of the
 * posts by depth band and the host's CPU a turn. Run against a host with no provider (see {@code
 * scripts/accept-bench.sh}), so the figures are the accept path's own: the outbox and the
 * conversation log. Not a test: {@code java AcceptHarness.java <baseUrl> <token> <hostPid>
 * [owners=20] [depth=200] [words=150]}.
 */
public final class AcceptHarness {

  private AcceptHarness() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println(
          "usage: AcceptHarness <baseUrl> <token> <hostPid> [owners=20] [depth=200] [words=150]");
      System.exit(2);
    }
    String base = args[0];
    String token = args[1];
    long pid = Long.parseLong(args[2]);
    int owners = args.length > 3 ? Integer.parseInt(args[3]) : 20;
    int depth = args.length > 4 ? Integer.parseInt(args[4]) : 200;
    int words = args.length > 5 ? Integer.parseInt(args[5]) : 150;
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    Random random = new Random(42);
    String run = Long.toString(System.nanoTime(), 36);
    String[] vocabulary = vocabulary();

    // warm-up on owners of its own: the JIT settles before anything is measured
    for (int i = 0; i < 400; i++) {
      post(http, base, token, body(run + "-warm", i % 10, i, words, random, vocabulary));
    }
    int bands = 4;
    List<List<Double>> latencies = new ArrayList<>();
    for (int b = 0; b < bands; b++) {
      latencies.add(new ArrayList<>());
    }
    long cpuBefore = cpuTicks(pid);
    long started = System.nanoTime();
    int errors = 0;
    for (int d = 0; d < depth; d++) {
      for (int o = 0; o < owners; o++) {
        String body = body(run, o, d, words, random, vocabulary);
        long t0 = System.nanoTime();
        int status = post(http, base, token, body);
        double ms = (System.nanoTime() - t0) / 1e6;
        if (status / 100 != 2) {
          errors++;
        }
        latencies.get(Math.min(bands - 1, d * bands / depth)).add(ms);
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    long cpu = cpuTicks(pid) - cpuBefore;
    int turns = owners * depth;
    System.out.printf(
        Locale.ROOT,
        "%d turns (%d owners x %d deep, ~%d words a message pair), one client: %.1f s, %d errors;"
            + " host CPU %.2f ms a turn%n",
        turns,
        owners,
        depth,
        words,
        seconds,
        errors,
        cpu * 10.0 / turns);
    System.out.println("| conversation depth | posts | p50 ms | p90 ms | p99 ms |");
    System.out.println("|---|---|---|---|---|");
    for (int b = 0; b < bands; b++) {
      double[] sorted = latencies.get(b).stream().mapToDouble(Double::doubleValue).toArray();
      Arrays.sort(sorted);
      System.out.printf(
          Locale.ROOT,
          "| %d-%d | %d | %.2f | %.2f | %.2f |%n",
          b * depth / bands + 1,
          (b + 1) * depth / bands,
          sorted.length,
          quantile(sorted, 0.5),
          quantile(sorted, 0.9),
          quantile(sorted, 0.99));
    }
  }

  private static double quantile(double[] sorted, double q) {
    return sorted.length == 0
        ? Double.NaN
        : sorted[(int) Math.min(sorted.length - 1, q * sorted.length)];
  }

  private static String body(
      String run, int owner, int turn, int words, Random random, String[] vocabulary) {
    return String.format(
        Locale.ROOT,
        "{\"ownerKey\":\"accept:user-%d\",\"conversationId\":\"c-%s\",\"turnId\":\"t-%d\","
            + "\"userMessage\":\"%s\",\"assistantReply\":\"%s\",\"triggerSource\":\"api\"}",
        owner,
        run,
        turn,
        text(random, vocabulary, words / 3),
        text(random, vocabulary, words - words / 3));
  }

  private static String text(Random random, String[] vocabulary, int count) {
    StringBuilder text = new StringBuilder();
    for (int w = 0; w < count; w++) {
      text.append(w > 0 ? " " : "").append(vocabulary[random.nextInt(vocabulary.length)]);
    }
    return text.append('.').toString();
  }

  private static String[] vocabulary() {
    String[] words = new String[2000];
    Random random = new Random(7);
    for (int i = 0; i < words.length; i++) {
      char[] w = new char[3 + random.nextInt(7)];
      for (int c = 0; c < w.length; c++) {
        w[c] = (char) ('a' + random.nextInt(26));
      }
      words[i] = new String(w);
    }
    return words;
  }

  private static int post(HttpClient http, String base, String token, String body)
      throws InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + "/api/v1/agents/accept-agent/memory/turns"))
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

  /** The host's user and system CPU so far, in clock ticks (1/100 s), from /proc. */
  private static long cpuTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }
}
