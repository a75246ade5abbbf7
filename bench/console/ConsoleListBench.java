import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The console's memory list at the API: one owner with {@code records} memories in the vector
 * provider (loaded through the host if it has fewer: turns until the count is reached, then a
 * tenth archived, one in 37 suppressed and 200 typed memories remembered, so the filters have
 * something to find), then {@code calls} list calls ({@code GET .../memory/items}) with varied
 * pages and filters (status, type, text, since/until and their combinations; a fixed seed), timed
 * at the client, one at a time, after 20 unmeasured ones. Prints p50, p95 and the largest time,
 * overall and per kind of call, and the same for 50 owner lists and 50 agent statistics.
 *
 * <p>JDK only, run as a single source file by {@code bench/console/console-bench.sh}: {@code java
 * ConsoleListBench.java <baseUrl> <token> [agent=console-bench] [owner=api:bench] [records=10000]
 * [calls=200] [phase=all|load|time]}.
 */
public final class ConsoleListBench {

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

  private static final String[] SEARCHED = {
    "greyhound", "sourdough", "Lisbon", "marathon", "violin", "garden", "migration", "concert"
  };

  private static final String[] TYPES = {"FACT", "PREFERENCE", "DECISION", "TASK_PROGRESS"};

  private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"");

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  private final String token;
  private final String agent;
  private final String owner;

  private ConsoleListBench(String base, String token, String agent, String owner) {
    this.base = base;
    this.token = token;
    this.agent = agent;
    this.owner = owner;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println(
          "usage: java ConsoleListBench.java <baseUrl> <token> [agent] [owner] [records] [calls]"
              + " [all|load|time]");
      System.exit(2);
    }
    String agent = args.length > 2 ? args[2] : "console-bench";
    String owner = args.length > 3 ? args[3] : "api:bench";
    int records = args.length > 4 ? Integer.parseInt(args[4]) : 10_000;
    int calls = args.length > 5 ? Integer.parseInt(args[5]) : 200;
    String phase = args.length > 6 ? args[6] : "all";
    ConsoleListBench bench = new ConsoleListBench(args[0], args[1], agent, owner);
    if (!phase.equals("time")) {
      bench.load(records);
    }
    if (!phase.equals("load")) {
      bench.time(calls);
    }
  }

  // ------------------------------------------------------------------ loading

  private void load(int records) throws Exception {
    long have = count("");
    if (have < records) {
      System.out.printf("loading: %d memories of %s, %d wanted%n", have, owner, records);
      long started = System.nanoTime();
      int next = (int) have;
      while (have < records) {
        int turns = (int) (records - have);
        postTurns(next, turns);
        next += turns;
        awaitDelivery();
        have = count("");
      }
      System.out.printf(
          "loaded %d memories through %d turns in %.0f s%n",
          have, next, (System.nanoTime() - started) / 1e9);
    }
    if (count("&status=archived") == 0) {
      vary();
    }
    System.out.printf(
        "owner %s of agent %s: %d memories; %d active, %d archived, %d suppressed; %d of type RAW%n",
        owner,
        agent,
        count(""),
        count("&status=active"),
        count("&status=archived"),
        count("&status=suppressed"),
        count("&type=RAW"));
  }

  /** Posts {@code turns} turns of the owner from 4 threads; a 503 (queue full) is waited out. */
  private void postTurns(int first, int turns) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int lane = t;
      done.add(
          pool.submit(
              () -> {
                for (int i = first + lane; i < first + turns; i += 4) {
                  Random random = new Random(i);
                  String body =
                      "{\"ownerKey\":\""
                          + owner
                          + "\",\"conversationId\":\"c-"
                          + (i / 50)
                          + "\",\"turnId\":\"t-"
                          + i
                          + "\",\"userMessage\":\""
                          + sentence(random, 8 + random.nextInt(25))
                          + " (note "
                          + i
                          + ")\",\"assistantReply\":\"Noted.\",\"triggerSource\":\"api\"}";
                  while (true) {
                    HttpResponse<String> answer = send("POST", agentPath("/memory/turns"), body);
                    if (answer.statusCode() == 202) {
                      break;
                    }
                    if (answer.statusCode() != 503) {
                      throw new IllegalStateException(
                          "turn: " + answer.statusCode() + " " + answer.body());
                    }
                    Thread.sleep(200);
                  }
                }
                return null;
              }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
  }

  private void awaitDelivery() throws Exception {
    while (true) {
      String outbox = send("GET", "/api/v1/outbox", null).body();
      Matcher pending = Pattern.compile("\"pending\"\\s*:\\s*(\\d+)").matcher(outbox);
      long waiting = 0;
      while (pending.find()) {
        waiting += Long.parseLong(pending.group(1));
      }
      if (waiting == 0) {
        return;
      }
      Thread.sleep(500);
    }
  }

  /** A tenth archived, one in 37 suppressed, 200 typed memories remembered. */
  private void vary() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int offset = 0; ; offset += 100) {
      String page = ok(send("GET", items("?ownerKey=" + enc(owner) + "&limit=100&offset=" + offset)));
      int before = ids.size();
      Matcher id = ID.matcher(page);
      while (id.find()) {
        ids.add(id.group(1));
      }
      if (ids.size() - before < 100) {
        break;
      }
    }
    for (int i = 0; i < ids.size(); i++) {
      String action = i % 10 == 0 ? "archive" : i % 37 == 0 ? "suppress" : null;
      if (action != null) {
        ok(send("POST", items("/" + enc(ids.get(i)) + "/" + action + "?ownerKey=" + enc(owner)), ""));
      }
    }
    Random random = new Random(7);
    for (int i = 0; i < 200; i++) {
      String type = TYPES[i % TYPES.length];
      ok(
          send(
              "POST",
              agentPath("/tools/vector/remember"),
              "{\"ownerKey\":\""
                  + owner
                  + "\",\"type\":\""
                  + type
                  + "\",\"text\":\"Remember about "
                  + sentence(random, 10)
                  + " and item "
                  + (char) ('a' + i % 26)
                  + (char) ('a' + i / 26)
                  + "\"}"));
    }
    System.out.printf("varied: %d archived or suppressed, 200 typed memories%n", ids.size() / 10);
  }

  // ------------------------------------------------------------------ timing

  private void time(int calls) throws Exception {
    long total = count("");
    Random random = new Random(42);
    String since = Instant.now().minus(Duration.ofDays(1)).toString();
    List<String[]> plan = new ArrayList<>();
    for (int i = 0; i < calls + 20; i++) {
      int limit = new int[] {20, 50, 100}[random.nextInt(3)];
      int offset = random.nextInt((int) Math.max(1, total - limit));
      String page = "&limit=" + limit + "&offset=" + offset;
      String word = SEARCHED[random.nextInt(SEARCHED.length)];
      String[] call =
          switch (i % 8) {
            case 0 -> new String[] {"page", page};
            case 1 -> new String[] {"first page", "&limit=" + limit};
            case 2 -> new String[] {"status", "&status=archived,suppressed&limit=" + limit};
            case 3 -> new String[] {"type", "&type=" + TYPES[random.nextInt(TYPES.length)]};
            case 4 -> new String[] {"text", "&text=" + word + "&limit=" + limit};
            case 5 -> new String[] {"since/until", "&since=" + enc(since) + page};
            case 6 ->
                new String[] {
                  "status+type+text", "&status=active&type=RAW&text=" + word + "&limit=" + limit
                };
            default -> new String[] {"status page", "&status=active" + page};
          };
      plan.add(call);
    }
    Map<String, List<Double>> byKind = new TreeMap<>();
    List<Double> all = new ArrayList<>();
    for (int i = 0; i < plan.size(); i++) {
      String[] call = plan.get(i);
      long start = System.nanoTime();
      String body = ok(send("GET", items("?ownerKey=" + enc(owner) + call[1])));
      double ms = (System.nanoTime() - start) / 1e6;
      if (!body.contains("\"total\"")) {
        throw new IllegalStateException("no total in " + body);
      }
      if (i >= 20) {
        all.add(ms);
        byKind.computeIfAbsent(call[0], k -> new ArrayList<>()).add(ms);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "list: %d calls over %d memories: %s%n",
        all.size(),
        total,
        summary(all));
    byKind.forEach((kind, times) -> System.out.printf(Locale.ROOT, "  %-17s %s%n", kind, summary(times)));
    System.out.printf(Locale.ROOT, "owners: 50 calls: %s%n", summary(timed(50, "/owners?limit=50")));
    System.out.printf(Locale.ROOT, "stats: 50 calls: %s%n", summary(timed(50, "/stats")));
    System.out.printf(
        Locale.ROOT, "stats of the owner: 50 calls: %s%n",
        summary(timed(50, "/stats?ownerKey=" + enc(owner))));
  }

  private List<Double> timed(int calls, String path) throws Exception {
    for (int i = 0; i < 5; i++) {
      ok(send("GET", agentPath(path)));
    }
    List<Double> times = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      long start = System.nanoTime();
      ok(send("GET", agentPath(path)));
      times.add((System.nanoTime() - start) / 1e6);
    }
    return times;
  }

  private static String summary(List<Double> times) {
    List<Double> sorted = new ArrayList<>(times);
    sorted.sort(Double::compare);
    return String.format(
        Locale.ROOT,
        "n %d, p50 %.1f ms, p95 %.1f ms, max %.1f ms",
        sorted.size(),
        percentile(sorted, 50),
        percentile(sorted, 95),
        sorted.get(sorted.size() - 1));
  }

  private static double percentile(List<Double> sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size(), rank) - 1));
  }

  // ------------------------------------------------------------------ http

  private long count(String filters) throws Exception {
    String body = ok(send("GET", items("/count?ownerKey=" + enc(owner) + "&scope=personal" + filters)));
    Matcher total = Pattern.compile("\"total\"\\s*:\\s*(\\d+)").matcher(body);
    if (!total.find()) {
      throw new IllegalStateException("no total in " + body);
    }
    return Long.parseLong(total.group(1));
  }

  private String items(String rest) {
    return agentPath("/memory/items" + rest);
  }

  private String agentPath(String rest) {
    return "/api/v1/agents/" + agent + rest;
  }

  private static String sentence(Random random, int words) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < words; i++) {
      out.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
    }
    return out.toString();
  }

  private static String enc(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private static String ok(HttpResponse<String> answer) {
    if (answer.statusCode() / 100 != 2) {
      throw new IllegalStateException(
          answer.request().uri() + ": " + answer.statusCode() + " " + answer.body());
    }
    return answer.body();
  }

  private HttpResponse<String> send(String method, String path, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(60))
            .header("Authorization", "Bearer " + token);
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> send(String method, String path) throws Exception {
    return send(method, path, null);
  }
}
