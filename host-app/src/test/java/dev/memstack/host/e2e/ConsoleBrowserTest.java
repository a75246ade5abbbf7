package dev.memstack.host.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.security.TestTokens;
import dev.memstack.host.testing.FakeOllamaServer;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.TestHost;
import dev.memstack.outbox.journal.DeadLetter;
import dev.memstack.outbox.journal.FileJournal;
import dev.memstack.outbox.journal.JournalRecord;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 30: the memory console in headless Chromium (Debian's {@code chromium}, driven by
 * playwright-core from {@code src/test/console}, installed with {@code npm ci} from its committed
 * lockfile) against a real host on a random port. The host has an admin, an owner-bound and a
 * viewer token, a scripted chat model for one dream, and a dead letter; the test seeds memories,
 * turns, files and a report through the REST API, runs the browser scenarios ({@code
 * console.test.mjs}: sign in, find, inspect, suppress, edit, diff, import, answer the card, retry a
 * dead letter, manage tokens, erase, the owner-bound token's limits, axe-core on every view,
 * screenshots at 1280 and 390 pixels under {@code target/console-screenshots}) and then checks at
 * the API that what the page did was done. Without node or chromium it is skipped on a developer's
 * machine and fails on CI ({@code CI=true}). {@code -Dmemstack.console.screenshot=true} copies the
 * desktop screenshot of the memories view to {@code docs/images/console.png}.
 */
@DisplayName("The console")
class ConsoleBrowserTest {

  private static final String AGENT = "a1";
  private static final String ALICE = "api:alice";
  private static final String BOB = "api:bob";
  private static final String CAROL = "api:carol";
  private static final String ERIN = "api:erin";
  private static final String ALICE_TOKEN = "console-alice-token-0123456789abcdef";
  private static final String VIEWER_TOKEN = "console-viewer-token-0123456789abcdef";
  private static final String CHROMIUM = "/usr/bin/chromium";
  private static final String DEAD_TURN = "t-parked";
  private static final String PLAYGROUND_QUESTION = "blue Gazelle bicycle";

  /**
   * Whether the scenarios of the routes this branch does not have yet (whoami, the recall preview,
   * tokens, owners, stats: added beside the console) are skipped when the host lacks them; {@code
   * false} once they are merged, so that a missing route fails the test.
   */
  private static final boolean ALLOW_MISSING_ROUTES = false;

  private static final String DREAM =
      "{\"should_update\": true, \"reason\": \"plans came up\","
          + " \"memory_content\": \"## Plans\\n- The console ships in March\\n- The pilot has"
          + " five teams\"}";

  @AutoClose private static final FakeOllamaServer OLLAMA = ollama();

  @RegisterExtension
  static final TestHost HOST =
      withDeadLetter(
          TestHost.withTestEmbedder("console")
              .withToken(ALICE_TOKEN, "member", ALICE)
              .withToken(VIEWER_TOKEN, "viewer", null)
              .with("memstack.models.chat", "ollama")
              .with("memstack.models.ollama.base-url", OLLAMA.baseUrl())
              .with("memstack.providers.vector.config.contradiction-check-enabled", "true"));

  private static final HostClient api = HOST.client();

  private static FakeOllamaServer ollama() {
    try {
      FakeOllamaServer server = new FakeOllamaServer(8);
      server.answerChats(
          system -> system.contains("You consolidate the long-term memory") ? DREAM : "[]");
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A turn of {@link #ALICE} parked as a dead letter of builtin in the host's journal before it
   * starts, as the outbox parks a turn its provider rejected; a retry hands it to builtin again.
   */
  private static TestHost withDeadLetter(TestHost host) {
    Instant accepted = Instant.now().minusSeconds(120);
    Turn turn =
        new Turn(
            DEAD_TURN,
            AgentId.of(AGENT),
            OwnerKey.of(ALICE),
            "c-parked",
            "Please note that my desk moved to the third floor",
            "Noted.",
            TriggerSource.API,
            accepted);
    FileJournal journal = FileJournal.open(host.dataDir().resolve("outbox"), 64 * 1024, true);
    try {
      journal
          .deadLetters()
          .put(
              new DeadLetter(
                  DeadLetter.idOf(1, "builtin"),
                  "builtin",
                  1,
                  ALICE,
                  AGENT,
                  "c-parked",
                  DEAD_TURN,
                  accepted,
                  accepted.plusMillis(200),
                  1,
                  DeadLetter.REJECTED,
                  "dev.memstack.spi.TurnRejectedException: the provider refused the turn"),
              JournalRecord.turn(turn, accepted, List.of("builtin")).encode());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      journal.close();
    }
    return host;
  }

  @BeforeAll
  static void seed() {
    await().atMost(Duration.ofMinutes(2)).until(api::up);
    for (int i = 1; i <= 3; i++) {
      api.post(
              "/api/v1/agents/a1/memory/turns",
              "{\"ownerKey\":\"api:alice\",\"conversationId\":\"c-console\",\"turnId\":\"t-"
                  + i
                  + "\",\"userMessage\":\"We talked about the garden, part "
                  + i
                  + "\",\"assistantReply\":\"Good to know.\",\"triggerSource\":\"web\"}")
          .expect(202);
    }
    remember(ALICE, "My bicycle is a blue Gazelle");
    remember(ALICE, "I water the balcony plants on Sundays");
    remember(ALICE, "My locker code is 1111");
    remember(ALICE, "My locker code is 2222");
    remember(BOB, "Bob keeps bees on the roof");
    remember(ERIN, "Erin collects stamps from Iceland");
    Answer dream = api.post("/api/v1/agents/a1/memory/emergence", "{\"ownerKey\":\"api:alice\"}");
    assertThat(dream.status()).as(dream.body()).isEqualTo(200);
    // after the dream, which rewrote MEMORY.md
    api.put(
            "/api/v1/agents/a1/workspace/files/MEMORY.md",
            "{\"ownerKey\":\"api:alice\",\"scope\":\"personal\",\"content\":\"# MEMORY\\n\\n"
                + "## Projects\\n- The memory console\\n\\n## Decisions\\n- Ship it in plain"
                + " JavaScript\\n\"}")
        .expect(200);
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(api.pending()).isZero());
    assertThat(recalled(PLAYGROUND_QUESTION))
        .as("the playground's question recalls the memory the page suppresses")
        .anySatisfy(text -> assertThat(text).contains("blue Gazelle"));
  }

  /** The texts a context call recalls for {@link #ALICE}. */
  private static List<String> recalled(String query) {
    return api.context(AGENT, ALICE, query).expect(200).recall().stream()
        .map(item -> item.get("text").asString())
        .toList();
  }

  private static JsonNode remember(String owner, String text) {
    ObjectNode args = HostClient.JSON.createObjectNode();
    args.put("ownerKey", owner);
    args.put("text", text);
    Answer stored = api.tool(AGENT, "vector", "remember", args);
    assertThat(stored.status()).as(stored.body()).isEqualTo(200);
    return stored.json();
  }

  @Test
  @DisplayName("serves its files without a token, under a policy that allows no inline script")
  void servesItsFilesWithoutATokenUnderItsPolicy() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String base = "http://127.0.0.1:" + HOST.port();
    HttpResponse<String> redirect =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/console")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(redirect.statusCode()).isEqualTo(302);
    assertThat(redirect.headers().firstValue("Location"))
        .hasValueSatisfying(location -> assertThat(location).endsWith("/console/"));
    for (String path : List.of("/console/", "/console/js/app.js", "/console/console.css")) {
      HttpResponse<String> file =
          http.send(
              HttpRequest.newBuilder(URI.create(base + path)).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(file.statusCode()).as(path).isEqualTo(200);
      String policy = file.headers().firstValue("Content-Security-Policy").orElse("");
      assertThat(policy)
          .as(path)
          .startsWith("default-src 'self'; script-src 'self';")
          .contains("frame-ancestors 'none'")
          .doesNotContain("unsafe-inline")
          .doesNotContain("unsafe-eval");
      assertThat(file.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    }
    HttpResponse<String> index =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/console/")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(index.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
    assertThat(index.body())
        .contains("<script type=\"module\" src=\"js/app.js\"></script>")
        .doesNotContainPattern("<script(?![^>]*\\bsrc=)[^>]*>")
        .doesNotContainPattern("\\son[a-z]+=");
    // the API next to it still needs a token, and a wrong token is refused on the console too
    assertThat(api.as(null).get("/api/v1/plugins").status()).isEqualTo(401);
    assertThat(api.as("not-a-known-token-0123456789").get("/console/").status()).isEqualTo(401);
    assertThat(api.as(null).get("/console/js/nope.js").status()).isEqualTo(404);
  }

  @Test
  @DisplayName("shows a line diff that rebuilds both texts on a longest common subsequence")
  void showsALineDiffThatRebuildsBothTexts() {
    Quickstarts.requireTool("node");
    Quickstarts.Run run =
        Quickstarts.run(
            Path.of("src", "test", "console").toAbsolutePath(),
            Map.of(),
            Duration.ofMinutes(1),
            "node",
            "--test",
            "diff.test.mjs");
    System.out.println(run.output());
    run.requireSuccess();
  }

  @Test
  @DisplayName(
      "lets a person find, correct and erase memory in a browser, within the token's rights")
  void passesItsBrowserScenarios() throws Exception {
    Quickstarts.requireTool("node");
    Quickstarts.requireTool("npm");
    requireChromium();
    Path project = Path.of("src", "test", "console").toAbsolutePath();
    if (!Files.isDirectory(project.resolve("node_modules"))) {
      Quickstarts.run(
              project, Map.of(), Duration.ofMinutes(5), "npm", "ci", "--no-audit", "--no-fund")
          .requireSuccess();
    }
    Path screenshots = Path.of("target", "console-screenshots").toAbsolutePath();
    Path downloads = Files.createTempDirectory("memstack-console-downloads");
    Map<String, String> env = new LinkedHashMap<>();
    env.put("BASE_URL", "http://127.0.0.1:" + HOST.port());
    env.put("ADMIN_TOKEN", TestTokens.ADMIN);
    env.put("OWNER_TOKEN", ALICE_TOKEN);
    env.put("VIEWER_TOKEN", VIEWER_TOKEN);
    env.put("AGENT", AGENT);
    env.put("OWNER", ALICE);
    env.put("OTHER_OWNER", BOB);
    env.put("IMPORT_OWNER", CAROL);
    env.put("ERASE_OWNER", ERIN);
    env.put("CARD_DATE", LocalDate.now(ZoneOffset.UTC).toString());
    env.put("DEAD_TURN", DEAD_TURN);
    env.put("QUESTION", PLAYGROUND_QUESTION);
    env.put("ALLOW_MISSING_ROUTES", ALLOW_MISSING_ROUTES ? "1" : "0");
    env.put("CHROMIUM", CHROMIUM);
    env.put("SCREENSHOT_DIR", screenshots.toString());
    env.put("DOWNLOAD_DIR", downloads.toString());
    Quickstarts.Run run =
        Quickstarts.run(project, env, Duration.ofMinutes(4), "node", "console.test.mjs");
    System.out.println(run.output());
    run.requireSuccess();

    assertWhatThePageDid();
    assertThat(screenshots.resolve("memories-1280.png")).isRegularFile();
    assertThat(screenshots.resolve("memories-390.png")).isRegularFile();
    if (Boolean.getBoolean("memstack.console.screenshot")) {
      Files.copy(
          screenshots.resolve("memories-1280.png"),
          Path.of("..", "docs", "images", "console.png"),
          StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** What the scenarios changed, read back through the API. */
  private static void assertWhatThePageDid() {
    JsonNode gazelle =
        api.get(
                "/api/v1/agents/a1/memory/items?provider=vector&ownerKey=api:alice&text=Gazelle"
                    + "&status=any")
            .expect(200)
            .json()
            .get("items")
            .get(0);
    assertThat(gazelle.get("status").asString()).isEqualTo("suppressed");
    assertThat(recalled(PLAYGROUND_QUESTION))
        .noneSatisfy(text -> assertThat(text).contains("Gazelle"));
    JsonNode plants =
        api.get("/api/v1/agents/a1/memory/items?provider=vector&ownerKey=api:alice&text=balcony")
            .expect(200)
            .json()
            .get("items")
            .get(0);
    assertThat(plants.get("text").asString()).contains("Saturdays");
    assertThat(
            api.get("/api/v1/agents/a1/workspace/files/MEMORY.md?ownerKey=api:alice&scope=personal")
                .expect(200)
                .json()
                .get("content")
                .asString())
        .contains("- The console reads memory back");
    assertThat(
            api.get("/api/v1/agents/a1/workspace/files/MEMORY.md?ownerKey=api:carol&scope=personal")
                .expect(200)
                .json()
                .get("content")
                .asString())
        .contains("- The console reads memory back");
    assertThat(api.get("/api/v1/outbox/dead-letters").expect(200).json().get("count").asInt())
        .isZero();
    assertThat(
            api.get("/api/v1/agents/a1/memory/items/count?provider=vector&ownerKey=api:erin")
                .expect(200)
                .json()
                .get("total")
                .asInt())
        .isZero();
    assertThat(
            api.get("/api/v1/agents/a1/memory/items/count?provider=vector&ownerKey=api:bob")
                .expect(200)
                .json()
                .get("total")
                .asInt())
        .as("the owner-bound token reached no other owner")
        .isEqualTo(1);
  }

  private static void requireChromium() {
    boolean found = Files.isExecutable(Path.of(CHROMIUM));
    if (!found && "true".equals(System.getenv("CI"))) {
      throw new AssertionError(
          CHROMIUM
              + " is missing; CI must run the console's browser tests (apt-get install chromium)");
    }
    org.junit.jupiter.api.Assumptions.assumeTrue(found, CHROMIUM + " is not installed");
  }
}
