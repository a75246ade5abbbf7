package dev.memstack.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The proof of shared mode: two real hosts ({@code java -jar dist/memstack.jar}, each its own JVM,
 * port and data folder) on one PostgreSQL database, with the bundled embedding model. Several
 * clients post turns to both in turn; one host is killed with {@code kill -9} in mid-stream and the
 * clients go on against the other (what a load balancer does). Then: every turn that was answered
 * 202 is stored exactly once by each provider (builtin's daily notes, vector's records), the killed
 * host's lanes were taken over, an owner's memory is recalled from either host, a workspace write
 * through one host changes the other host's prompt, scheduled dreaming ran once per schedule across
 * both, and the erasure of an owner through one host leaves no row of that owner's content in any
 * table of the database and no file of it in either host's data folder.
 */
class TwoHostsOnOneDatabaseTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String AGENT = "shared-agent";
  private static final int CLIENTS = 4;
  private static final int TURNS_PER_CLIENT = 40;
  private static final int KILL_AFTER = 70;
  private static final int OWNERS = 6;
  private static final int DREAM_EVERY_SECONDS = 5;
  private static final Pattern MARKER = Pattern.compile("mk\\d+x\\d+q[0-9a-f]{6}");

  private final String run = HexFormat.of().formatHex(randomBytes(3));

  @Test
  void twoHostsOnOneDatabaseBehaveAsOne() throws Exception {
    try (SharedTestDatabase db = SharedTestDatabase.create();
        FakeChatServer chat = new FakeChatServer()) {
      Map<String, String> properties = new LinkedHashMap<>(db.hostProperties());
      properties.put("memstack.models.chat", "ollama");
      properties.put("memstack.models.ollama.base-url", chat.url());
      properties.put(
          "memstack.providers.builtin.config.emergence-cron",
          "*/" + DREAM_EVERY_SECONDS + " * * * * *");
      properties.put("memstack.providers.builtin.config.schedule-check-interval", "1s");
      // a host killed in a dreaming run holds the agent's dreaming lock for the model timeout + 30
      // s
      properties.put("memstack.providers.builtin.config.model-timeout", "5s");
      long started = System.nanoTime();
      List<DistHost> hosts = new ArrayList<>();
      try {
        DistHost a = start(hosts, "shared-host-a", properties);
        DistHost b = start(hosts, "shared-host-b", properties);

        Posted posted = postTurnsAndKill(a, b);
        System.out.printf(
            "two hosts: %d turns accepted (%d by the host that was killed), %d refused, %d"
                + " unanswered when it died%n",
            posted.accepted.size(),
            posted.acceptedByB.get(),
            posted.refused.get(),
            posted.unknown.size());
        assertThat(posted.accepted).hasSizeGreaterThan(CLIENTS * TURNS_PER_CLIENT - 10);
        assertThat(posted.acceptedByB.get()).isGreaterThan(KILL_AFTER / 4);

        awaitDelivered(a, Duration.ofMinutes(3));
        JsonNode outbox = a.adminGet("/api/v1/outbox");
        long redelivered = 0;
        for (JsonNode provider : outbox.path("providers")) {
          redelivered += provider.path("redelivered").asLong();
        }
        System.out.println("two hosts: redeliveries reported by the outbox: " + redelivered);

        // every accepted turn exactly once in each provider's store
        Map<String, Integer> vector =
            markerCounts(db.strings("SELECT content FROM memstack.vector_memory"));
        Map<String, Integer> builtin =
            markerCounts(
                db.strings("SELECT content FROM builtin_files WHERE path LIKE 'memory/%'"));
        for (Map.Entry<String, String> turn : posted.accepted.entrySet()) {
          assertThat(vector.getOrDefault(turn.getKey(), 0))
              .as("vector records of accepted turn %s", turn.getKey())
              .isEqualTo(1);
          assertThat(builtin.getOrDefault(turn.getKey(), 0))
              .as("builtin daily-note entries of accepted turn %s", turn.getKey())
              .isEqualTo(1);
        }
        for (String unknown : posted.unknown) {
          assertThat(vector.getOrDefault(unknown, 0)).isLessThanOrEqualTo(1);
          assertThat(builtin.getOrDefault(unknown, 0)).isLessThanOrEqualTo(1);
        }
        Set<String> known = new java.util.HashSet<>(posted.accepted.keySet());
        known.addAll(posted.unknown);
        assertThat(vector.keySet()).isSubsetOf(known);
        assertThat(builtin.keySet()).isSubsetOf(known);

        // the second host again (a new JVM, a new data folder): both hosts recall an owner's turn
        DistHost c = start(hosts, "shared-host-c", properties);
        Map.Entry<String, String> probe = posted.accepted.entrySet().iterator().next();
        for (DistHost host : List.of(a, c)) {
          JsonNode answer = recall(host, probe.getValue(), probe.getKey());
          assertThat(answer.path("context").asString())
              .as("context from %s: %s", host.url(), answer.path("providers"))
              .contains(probe.getKey());
        }

        // a workspace write through one host reaches the other host's cached prompt
        String rule = "Answer in full sentences (rule " + run + ").";
        HttpResponse<String> put =
            a.call(
                "PUT",
                "/api/v1/agents/" + AGENT + "/workspace/files/AGENTS.md",
                DistHost.ADMIN_TOKEN,
                "{\"content\":" + JSON.writeValueAsString("# Agents\n\n" + rule + "\n") + "}");
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        assertThat(awaitPrompt(c, probe.getValue(), rule, Duration.ofSeconds(10)))
            .as("the other host's system prompt after the write")
            .contains(rule);

        // scheduled dreaming: one team entry per schedule slot across both hosts (waiting, if
        // need be, for the lock of a run the killed host was in to pass)
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        int claims;
        long entries;
        do {
          Thread.sleep(1000);
          claims =
              Integer.parseInt(
                  db.strings(
                          "SELECT count(*) FROM memstack_coordination_runs WHERE job ="
                              + " 'dreaming:"
                              + AGENT
                              + "'")
                      .get(0));
          entries = teamDreamEntries(a);
        } while (entries < 3 && System.nanoTime() < deadline);
        double elapsed = (System.nanoTime() - started) / 1e9;
        System.out.printf(
            "two hosts: %d scheduled dreaming runs claimed in %.0f s (every %d s), %d team"
                + " entries%n",
            claims, elapsed, DREAM_EVERY_SECONDS, entries);
        String coordination =
            String.join(
                "; ",
                db.strings(
                    "SELECT 'lock ' || name || ' ' || holder || ' until ' || expires_at FROM"
                        + " memstack_coordination_locks UNION ALL SELECT 'run ' || job || ' ' ||"
                        + " slot || ' ' || holder FROM memstack_coordination_runs"));
        assertThat(entries)
            .as("team entries; coordination: %s", coordination)
            .isGreaterThanOrEqualTo(3);
        // a slot is claimed by the host that holds the lock, right before it writes its entry
        // (the killed host may have claimed one and died before writing)
        assertThat(entries).isBetween((long) claims - 1, (long) claims);
        assertThat((double) claims).isLessThanOrEqualTo(elapsed / DREAM_EVERY_SECONDS + 1);

        // erasure through one host removes the owner everywhere
        String owner = probe.getValue();
        List<String> markers =
            posted.accepted.entrySet().stream()
                .filter(e -> e.getValue().equals(owner))
                .map(Map.Entry::getKey)
                .toList();
        HttpResponse<String> erased =
            c.call(
                "DELETE",
                "/api/v1/owners/"
                    + java.net.URLEncoder.encode(owner, StandardCharsets.UTF_8)
                    + "/memory",
                DistHost.ADMIN_TOKEN,
                null);
        assertThat(erased.statusCode()).as(erased.body()).isEqualTo(200);
        awaitDelivered(a, Duration.ofMinutes(1));
        for (String table : db.tables()) {
          for (String row : db.strings("SELECT t::text FROM " + table + " t")) {
            for (String marker : markers) {
              assertThat(row).as("a row of %s after the erasure", table).doesNotContain(marker);
            }
            if (!table.startsWith("public.memstack_outbox_")) {
              assertThat(row).as("a row of %s after the erasure", table).doesNotContain(owner);
            }
          }
        }
        for (DistHost host : List.of(a, c)) {
          assertNoFileOf(host.dataDir(), owner, markers);
        }
      } finally {
        for (DistHost host : hosts) {
          host.close();
        }
      }
    }
  }

  private static DistHost start(List<DistHost> hosts, String name, Map<String, String> properties)
      throws IOException {
    DistHost host = DistHost.start(name, properties);
    hosts.add(host);
    return host;
  }

  /** What the clients posted: turns answered 202 (marker → owner), refusals, unanswered ones. */
  private static final class Posted {
    final Map<String, String> accepted = new ConcurrentHashMap<>();
    final List<String> unknown = new CopyOnWriteArrayList<>();
    final AtomicInteger refused = new AtomicInteger();
    final AtomicInteger acceptedByB = new AtomicInteger();
  }

  private Posted postTurnsAndKill(DistHost a, DistHost b) throws Exception {
    Posted posted = new Posted();
    AtomicInteger sent = new AtomicInteger();
    AtomicBoolean killed = new AtomicBoolean();
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    List<Future<?>> done = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      int client = c;
      done.add(
          clients.submit(
              () -> {
                for (int n = 0; n < TURNS_PER_CLIENT; n++) {
                  if (sent.incrementAndGet() == KILL_AFTER && killed.compareAndSet(false, true)) {
                    b.kill();
                    System.out.println("two hosts: killed host B (kill -9) after " + KILL_AFTER);
                  }
                  boolean toB = (client + n) % 2 == 1 && !killed.get();
                  DistHost host = toB ? b : a;
                  String owner = "it:" + run + ":" + ((client * TURNS_PER_CLIENT + n) % OWNERS);
                  String marker = "mk" + client + "x" + n + "q" + run;
                  String body =
                      "{\"ownerKey\":\""
                          + owner
                          + "\",\"conversationId\":\"conv-"
                          + client
                          + "\",\"userMessage\":\"Please note "
                          + marker
                          + ": my locker code for the gym is "
                          + (1000 + n)
                          + "\",\"assistantReply\":\"Noted.\",\"triggerSource\":\"web\"}";
                  try {
                    HttpResponse<String> answer =
                        host.post(
                            "/api/v1/agents/" + AGENT + "/memory/turns",
                            DistHost.ADMIN_TOKEN,
                            body);
                    if (answer.statusCode() == 202) {
                      posted.accepted.put(marker, owner);
                      if (toB) {
                        posted.acceptedByB.incrementAndGet();
                      }
                    } else {
                      posted.refused.incrementAndGet();
                    }
                  } catch (UncheckedIOException e) {
                    posted.unknown.add(marker); // the host died before it answered
                  }
                }
                return null;
              }));
    }
    for (Future<?> future : done) {
      future.get(5, TimeUnit.MINUTES);
    }
    clients.shutdown();
    return posted;
  }

  private static void awaitDelivered(DistHost host, Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    JsonNode last = null;
    while (System.nanoTime() < deadline) {
      last = host.adminGet("/api/v1/outbox");
      boolean idle = true;
      for (JsonNode provider : last.path("providers")) {
        String id = provider.path("id").asString();
        if ((id.equals("builtin") || id.equals("vector")) && provider.path("pending").asInt() > 0) {
          idle = false;
        }
      }
      if (idle) {
        return;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("the shared outbox did not drain within " + limit + ": " + last);
  }

  private static JsonNode context(DistHost host, String owner, String query) {
    String body =
        "{\"ownerKey\":\""
            + owner
            + "\",\"conversationId\":\"probe\",\"query\":"
            + JSON.writeValueAsString(query)
            + ",\"limit\":10}";
    HttpResponse<String> answer =
        host.post("/api/v1/agents/" + AGENT + "/memory/context", DistHost.ADMIN_TOKEN, body);
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    return JSON.readTree(answer.body());
  }

  /**
   * The context answer for a question about {@code marker}; asked again (up to five times) while a
   * provider is reported late or failed, as a first call on a host that has just started can be on
   * a loaded machine.
   */
  private static JsonNode recall(DistHost host, String owner, String marker)
      throws InterruptedException {
    JsonNode answer = null;
    for (int attempt = 0; attempt < 5; attempt++) {
      answer = context(host, owner, "what did I note about " + marker);
      boolean allOk = true;
      for (JsonNode provider : answer.path("providers")) {
        String status = provider.path("status").asString();
        allOk &= status.equals("ok") || status.equals("disabled");
      }
      if (allOk) {
        return answer;
      }
      System.out.println("two hosts: context from " + host.url() + ": " + answer.path("providers"));
      Thread.sleep(1000);
    }
    return answer;
  }

  private static String awaitPrompt(DistHost host, String owner, String text, Duration limit)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    String prompt = "";
    while (System.nanoTime() < deadline) {
      prompt = context(host, owner, "hello").path("systemPrompt").asString();
      if (prompt.contains(text)) {
        return prompt;
      }
      Thread.sleep(200);
    }
    return prompt;
  }

  /** The scheduled team entries of the agent's {@code DREAMS.md}, read through {@code host}. */
  private static long teamDreamEntries(DistHost host) {
    HttpResponse<String> dreams =
        host.get("/api/v1/agents/" + AGENT + "/workspace/files/DREAMS.md", DistHost.ADMIN_TOKEN);
    if (dreams.statusCode() == 404) {
      return 0;
    }
    assertThat(dreams.statusCode()).as(dreams.body()).isEqualTo(200);
    return JSON.readTree(dreams.body())
        .path("content")
        .asString()
        .lines()
        .filter(line -> line.startsWith("## ") && line.endsWith("· team · scheduled"))
        .count();
  }

  private static Map<String, Integer> markerCounts(List<String> texts) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String text : texts) {
      Matcher matcher = MARKER.matcher(text == null ? "" : text);
      while (matcher.find()) {
        counts.merge(matcher.group(), 1, Integer::sum);
      }
    }
    return counts;
  }

  private static void assertNoFileOf(Path dataDir, String owner, List<String> markers)
      throws IOException {
    String encoded = java.net.URLEncoder.encode(owner, StandardCharsets.UTF_8);
    try (Stream<Path> files = Files.walk(dataDir)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        assertThat(file.toString()).doesNotContain(owner).doesNotContain(encoded);
        if (Files.size(file) < 16 * 1024 * 1024) {
          String content = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
          for (String marker : markers) {
            assertThat(content).as("file %s after the erasure", file).doesNotContain(marker);
          }
        }
      }
    }
  }

  private static byte[] randomBytes(int n) {
    byte[] bytes = new byte[n];
    ThreadLocalRandom.current().nextBytes(bytes);
    return bytes;
  }
}
