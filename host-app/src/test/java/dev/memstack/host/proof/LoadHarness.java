package dev.memstack.host.proof;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded loopback load on a running host: {@code clients} threads, each in a closed loop for
 * {@code seconds}, mixing context calls (70 %) and turns (30 %) over a few agents and owners.
 * Prints per request type the count, errors (anything but 200/202, or no answer) and
 * p50/p90/p99/max latency, and exits 1 when there was an error. JDK only, so it also runs as a
 * single source file: {@code java host-app/src/test/java/dev/memstack/host/proof/LoadHarness.java
 * <baseUrl> <token> [clients=32] [seconds=60]} (what {@code scripts/load-test.sh} does); several
 * hosts as comma-separated URLs, taken by the clients in turn.
 */
public final class LoadHarness {

  private LoadHarness() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: LoadHarness <baseUrl> <token> [clients=32] [seconds=60]");
      System.exit(2);
    }
    // several hosts of one deployment (shared mode): comma-separated URLs, taken by the clients in
    // turn
    String[] bases = args[0].split(",");
    String token = args[1];
    int clients = args.length > 2 ? Integer.parseInt(args[2]) : 32;
    int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 60;
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    Map<String, List<Long>> latencies = new ConcurrentHashMap<>();
    Map<String, AtomicLong> errors = new ConcurrentHashMap<>();
    Map<String, String> firstError = new ConcurrentHashMap<>();
    for (String type : List.of("context", "turn")) {
      latencies.put(type, Collections.synchronizedList(new ArrayList<>()));
      errors.put(type, new AtomicLong());
    }
    long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    CountDownLatch done = new CountDownLatch(clients);
    String run = Long.toHexString(System.currentTimeMillis());
    for (int c = 0; c < clients; c++) {
      int client = c;
      Thread thread =
          new Thread(
              () -> {
                Random random = new Random(client);
                int n = 0;
                try {
                  while (System.nanoTime() < end) {
                    String agent = "load-agent-" + (client % 4);
                    String owner = "load:user-" + (client % 16);
                    boolean turn = random.nextInt(10) < 3;
                    String type = turn ? "turn" : "context";
                    String body =
                        turn
                            ? String.format(
                                Locale.ROOT,
                                "{\"ownerKey\":\"%s\",\"conversationId\":\"c%d\",\"turnId\":\"load-%s-%d-%d\","
                                    + "\"userMessage\":\"I planted %d tomatoes and read book %d this week\","
                                    + "\"assistantReply\":\"Nice, noted.\",\"triggerSource\":\"api\"}",
                                owner,
                                client,
                                run,
                                client,
                                n,
                                random.nextInt(100),
                                random.nextInt(1000))
                            : String.format(
                                Locale.ROOT,
                                "{\"ownerKey\":\"%s\",\"query\":\"what did I plant and read %d\",\"limit\":10}",
                                owner,
                                random.nextInt(100));
                    String path =
                        "/api/v1/agents/" + agent + (turn ? "/memory/turns" : "/memory/context");
                    HttpRequest request =
                        HttpRequest.newBuilder(URI.create(bases[client % bases.length] + path))
                            .header("Authorization", "Bearer " + token)
                            .header("Content-Type", "application/json")
                            .timeout(Duration.ofSeconds(30))
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build();
                    long begin = System.nanoTime();
                    try {
                      HttpResponse<String> response =
                          http.send(request, HttpResponse.BodyHandlers.ofString());
                      long micros = (System.nanoTime() - begin) / 1000;
                      int expected = turn ? 202 : 200;
                      if (response.statusCode() != expected) {
                        errors.get(type).incrementAndGet();
                        firstError.putIfAbsent(type, response.statusCode() + " " + response.body());
                      } else {
                        latencies.get(type).add(micros);
                      }
                    } catch (Exception e) {
                      errors.get(type).incrementAndGet();
                      firstError.putIfAbsent(type, e.toString());
                    }
                    n++;
                  }
                } finally {
                  done.countDown();
                }
              },
              "load-client-" + c);
      thread.start();
    }
    done.await();
    long totalErrors = 0;
    System.out.printf(
        Locale.ROOT,
        "clients=%d seconds=%d%n| type | ok | errors | req/s | p50 ms | p90 ms | p99 ms | max ms |%n"
            + "|---|---|---|---|---|---|---|---|%n",
        clients,
        seconds);
    for (String type : List.of("context", "turn")) {
      List<Long> sorted = new ArrayList<>(latencies.get(type));
      Collections.sort(sorted);
      long errorCount = errors.get(type).get();
      totalErrors += errorCount;
      System.out.printf(
          Locale.ROOT,
          "| %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f |%n",
          type,
          sorted.size(),
          errorCount,
          sorted.size() / (double) seconds,
          pct(sorted, 0.50),
          pct(sorted, 0.90),
          pct(sorted, 0.99),
          sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1) / 1000.0);
    }
    firstError.forEach((type, error) -> System.out.println("first " + type + " error: " + error));
    System.exit(totalErrors == 0 ? 0 : 1);
  }

  private static double pct(List<Long> sorted, double q) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int index = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index))) / 1000.0;
  }
}
