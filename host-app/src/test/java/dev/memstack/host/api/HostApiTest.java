package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.plugin.PluginZips;
import dev.memstack.host.plugin.fixture.FixturePlugin;
import dev.memstack.host.security.TestTokens;
import dev.memstack.spi.Embedder;
import dev.memstack.tck.HashingEmbedder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The host end to end over HTTP: the three real plugin zips plus the test fixture plugin, loaded
 * from a temporary folder by the real plugin manager, the real stack and the REST API. The
 * embedding model is the deterministic test embedder, so no model loads. Every request carries an
 * admin token; what tokens allow is {@code SecurityApiTest}'s subject.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class HostApiTest {

  private static final Path TEMP = temp();
  private static final Path DATA = TEMP.resolve("data");
  private static final String CONTEXT_BODY =
      "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"query\":\"hello\"}";
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http = HttpClient.newHttpClient();

  @LocalServerPort int port;

  private static Path temp() {
    try {
      return Files.createTempDirectory("memstack-api-test");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    Path plugins = PluginZips.copyAllTo(TEMP.resolve("plugins"));
    FixturePlugin.build(plugins, ">=0.1.0");
    registry.add("memstack.plugins.dir", plugins::toString);
    registry.add("memstack.data-dir", DATA::toString);
    TestTokens.admin(registry);
    registry.add("memstack.providers.fixture.type", () -> "fixture");
    registry.add("memstack.providers.fixture.order", () -> "5");
    registry.add("memstack.providers.fixture.config.prefetch-delay", () -> "5ms");
    registry.add("memstack.api.max-body-bytes", () -> "64KB");
    registry.add("memstack.models.onnx.warm-up", () -> "false");
    // a busy build machine can make the first (cold) provider calls slow; the deadlines are not
    // what this test is about
    registry.add("memstack.stack.context.provider-timeout", () -> "5s");
    registry.add("memstack.stack.context.deadline", () -> "8s");
    registry.add("memstack.stack.system-prompt.timeout", () -> "5s");
  }

  @AfterAll
  static void cleanUp() throws InterruptedException {
    TestDirs.deleteQuietly(TEMP);
  }

  @TestConfiguration
  static class TestEmbedder {
    @Bean
    @Primary
    Embedder testEmbedder() {
      return new HashingEmbedder();
    }
  }

  // ---- helpers

  private record Answer(int status, JsonNode json, HttpResponse<String> raw) {}

  private Answer send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      JsonNode json = response.body().isEmpty() ? null : JSON.readTree(response.body());
      return new Answer(response.statusCode(), json, response);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", TestTokens.bearer(TestTokens.ADMIN))
        .timeout(Duration.ofSeconds(20));
  }

  private Answer get(String path) {
    return send(request(path).GET());
  }

  private Answer post(String path, String body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private static List<String> texts(JsonNode array, String field) {
    return StreamSupport.stream(array.spliterator(), false)
        .map(n -> n.get(field).asString())
        .toList();
  }

  private static JsonNode byId(JsonNode array, String field, String value) {
    return StreamSupport.stream(array.spliterator(), false)
        .filter(n -> value.equals(n.get(field).asString()))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no element with " + field + "=" + value + " in " + array));
  }

  private static void assertBadRequest(Answer answer, String field) {
    assertThat(answer.status()).as(answer.raw().body()).isEqualTo(400);
    assertThat(answer.json().get("error").asString()).isEqualTo("bad_request");
    assertThat(answer.json().get("field").asString()).isEqualTo(field);
    assertThat(answer.json().get("message").asString()).isNotBlank();
  }

  // ---- health, plugins, providers

  @Test
  void healthIsUpWithAnEntryPerRunningProvider() {
    Answer health = get("/actuator/health");

    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().get("status").asString()).isEqualTo("UP");
    assertThat(health.json().get("components").get("providers").get("status").asString())
        .isEqualTo("UP");
    JsonNode providers = health.json().get("components").get("providers").get("details");
    assertThat(providers.propertyNames())
        .contains("builtin", "vector", "fixture")
        .doesNotContain("mem0");
    assertThat(providers.get("builtin").get("status").asString()).isEqualTo("UP");
    assertThat(providers.get("builtin").get("details").get("plugin").asString())
        .isEqualTo("memstack-builtin");
    Answer readiness = get("/actuator/health/readiness");
    assertThat(readiness.status()).as(readiness.raw().body()).isEqualTo(200);
    assertThat(readiness.json().get("components").propertyNames())
        .containsExactlyInAnyOrder("readinessState", "outbox", "models");
  }

  @Test
  void theThreePluginsAreListedAsStartedWithTheirTypes() {
    Answer plugins = get("/api/v1/plugins");

    assertThat(plugins.status()).isEqualTo(200);
    JsonNode list = plugins.json().get("plugins");
    assertThat(texts(list, "id"))
        .contains("memstack-builtin", "memstack-vector", "memstack-mem0", FixturePlugin.ID);
    for (String id : List.of("memstack-builtin", "memstack-vector", "memstack-mem0")) {
      assertThat(byId(list, "id", id).get("state").asString()).as(id).isEqualTo("started");
    }
    assertThat(byId(list, "id", "memstack-builtin").get("providerTypes").get(0).asString())
        .isEqualTo("builtin");
  }

  @Test
  void providersShowTheirPluginOrderStateAndHealthButNoConfiguration() {
    Answer providers = get("/api/v1/providers");

    assertThat(providers.status()).isEqualTo(200);
    JsonNode list = providers.json().get("providers");
    assertThat(texts(list, "id")).containsExactly("builtin", "vector", "mem0", "fixture");
    JsonNode builtin = byId(list, "id", "builtin");
    assertThat(builtin.get("plugin").asString()).isEqualTo("memstack-builtin");
    assertThat(builtin.get("order").asInt()).isZero();
    assertThat(builtin.get("enabled").asBoolean()).isTrue();
    assertThat(builtin.get("health").get("status").asString()).isEqualTo("UP");
    JsonNode mem0 = byId(list, "id", "mem0");
    assertThat(mem0.get("enabled").asBoolean()).isFalse();
    assertThat(mem0.get("health").get("status").asString()).isEqualTo("DISABLED");
    assertThat(providers.raw().body()).doesNotContain("prefetch-delay").doesNotContain("5ms");
  }

  // ---- context and turns

  @Test
  void aContextCallAnswersWithTheWorkspacePromptAndEveryProviderOk() {
    Answer answer = post("/api/v1/agents/a1/memory/context", CONTEXT_BODY);

    assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
    assertThat(answer.json().get("systemPrompt").asString()).contains("--- AGENTS.md ---");
    JsonNode providers = answer.json().get("providers");
    assertThat(byId(providers, "id", "builtin").get("status").asString()).isEqualTo("ok");
    assertThat(byId(providers, "id", "fixture").get("status").asString()).isEqualTo("ok");
    assertThat(byId(providers, "id", "fixture").get("tookMs").isIntegralNumber()).isTrue();
    JsonNode recall = byId(answer.json().get("recall"), "provider", "fixture");
    assertThat(recall.get("text").asString()).isEqualTo("fixture memory about hello");
    assertThat(recall.get("scope").asString()).isEqualTo("personal");
    assertThat(recall.get("score").asDouble()).isEqualTo(1.0);
    assertThat(answer.json().get("context").asString())
        .contains("<memory-context>")
        .contains("fixture memory about hello");
  }

  @Test
  void aTurnIsAcceptedWith202AndReachesTheProviders() {
    Answer answer =
        post(
            "/api/v1/agents/a1/memory/turns",
            "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"userMessage\":\"I like tea\","
                + "\"assistantReply\":\"Noted.\",\"triggerSource\":\"web\"}");

    assertThat(answer.status()).as(answer.raw().body()).isEqualTo(202);
    String turnId = answer.json().get("turnId").asString();
    assertThat(turnId).isNotBlank();
    await().atMost(Duration.ofSeconds(10)).until(() -> fixtureTurns().contains(turnId));
  }

  @Test
  void feedbackNamesRecalledItemsByTheirIdAndReachesTheProvidersThatTakeIt() {
    Answer turn =
        post(
            "/api/v1/agents/a1/memory/turns",
            "{\"ownerKey\":\"user:7\",\"conversationId\":\"c7\",\"userMessage\":"
                + "\"The violet kestrel nests by the quarry\",\"assistantReply\":\"\","
                + "\"triggerSource\":\"web\"}");
    assertThat(turn.status()).as(turn.raw().body()).isEqualTo(202);
    String body = "{\"ownerKey\":\"user:7\",\"query\":\"violet kestrel quarry\"}";
    JsonNode[] item = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Answer context = post("/api/v1/agents/a1/memory/context", body);
              assertThat(context.json().get("ownerPrompt").isString()).isTrue();
              item[0] = byId(context.json().get("recall"), "provider", "vector");
            });
    String id = item[0].get("metadata").get("id").asString();
    assertThat(id).isNotBlank();

    Answer applied =
        post(
            "/api/v1/agents/a1/memory/feedback",
            "{\"ownerKey\":\"user:7\",\"used\":[{\"provider\":\"vector\",\"id\":\""
                + id
                + "\"},{\"provider\":\"builtin\",\"id\":\"x\"}]}");
    assertThat(applied.status()).as(applied.raw().body()).isEqualTo(200);
    assertThat(applied.json().get("applied").get("vector").asInt()).isEqualTo(1);
    assertThat(applied.json().get("applied").get("builtin").asInt())
        .as("builtin takes no feedback")
        .isEqualTo(-1);
    Answer foreign =
        post(
            "/api/v1/agents/a1/memory/feedback",
            "{\"ownerKey\":\"user:8\",\"used\":[{\"provider\":\"vector\",\"id\":\"" + id + "\"}]}");
    assertThat(foreign.json().get("applied").get("vector").asInt())
        .as("another owner's personal item")
        .isZero();

    String feedback = "/api/v1/agents/a1/memory/feedback";
    assertBadRequest(post(feedback, "{\"ownerKey\":\"user:7\"}"), "used");
    assertBadRequest(post(feedback, "{\"ownerKey\":\"user:7\",\"used\":[]}"), "used");
    assertBadRequest(
        post(feedback, "{\"ownerKey\":\"user:7\",\"used\":[{\"provider\":\"vector\"}]}"),
        "used[0].id");
    assertBadRequest(post(feedback, "{\"ownerKey\":\"user:7\",\"used\":[7]}"), "used[0]");
    assertBadRequest(
        post(feedback, "{\"ownerKey\":\"user:7\",\"used\":[{\"provider\":\"nope\",\"id\":\"x\"}]}"),
        "used");
  }

  @Test
  void aRejectedTurnIsNeverStored() throws IOException {
    Answer rejected =
        post(
            "/api/v1/agents/a1/memory/turns",
            "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"userMessage\":\"x\","
                + "\"assistantReply\":\"y\",\"triggerSource\":\"telegraph\",\"turnId\":\"rejected-1\"}");
    Answer accepted =
        post(
            "/api/v1/agents/a1/memory/turns",
            "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"userMessage\":\"x\","
                + "\"assistantReply\":\"y\",\"triggerSource\":\"api\",\"turnId\":\"accepted-1\"}");

    assertBadRequest(rejected, "triggerSource");
    assertThat(accepted.status()).isEqualTo(202);
    assertThat(accepted.json().get("turnId").asString()).isEqualTo("accepted-1");
    await().atMost(Duration.ofSeconds(10)).until(() -> fixtureTurns().contains("accepted-1"));
    assertThat(fixtureTurns()).doesNotContain("rejected-1");
  }

  private static String fixtureTurns() throws IOException {
    Path turns = DATA.resolve("fixture").resolve("turns.txt");
    return Files.exists(turns) ? Files.readString(turns) : "";
  }

  // ---- bad requests

  @Test
  void anOwnerKeyWithSpacesIsABadRequestNamingOwnerKey() {
    Answer answer =
        post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"no spaces allowed\",\"conversationId\":\"c1\",\"query\":\"hello\"}");

    assertBadRequest(answer, "ownerKey");
    assertThat(answer.json().get("message").asString()).contains("ownerKey");
  }

  @Test
  void aBadAgentIdIsABadRequestNamingAgentId() {
    assertBadRequest(post("/api/v1/agents/a%20b/memory/context", CONTEXT_BODY), "agentId");
  }

  @Test
  void missingAndMistypedFieldsAreBadRequestsNamingTheField() {
    assertBadRequest(
        post("/api/v1/agents/a1/memory/context", "{\"ownerKey\":\"user:1\"}"), "query");
    assertBadRequest(
        post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"user:1\",\"query\":\"q\",\"limit\":\"ten\"}"),
        "limit");
    assertBadRequest(
        post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"user:1\",\"query\":\"q\",\"limit\":500}"),
        "limit");
    assertBadRequest(
        post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"user:1\",\"query\":\"q\",\"conversationId\":\"a/b\"}"),
        "conversationId");
    assertBadRequest(
        post(
            "/api/v1/agents/a1/memory/turns",
            "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"userMessage\":\"\","
                + "\"assistantReply\":\"\",\"triggerSource\":\"web\"}"),
        "userMessage");
    assertBadRequest(post("/api/v1/agents/a1/memory/context", "[1,2]"), "body");
  }

  @Test
  void malformedJsonIsABadRequest() {
    Answer answer = post("/api/v1/agents/a1/memory/context", "{\"ownerKey\": \"user:1\",");

    assertBadRequest(answer, "body");
    assertThat(answer.json().get("message").asString()).startsWith("malformed JSON");
  }

  @Test
  void aBodyOverTheLimitIsABadRequestWithOrWithoutContentLength() {
    String big =
        "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"query\":\""
            + "x".repeat(70_000)
            + "\"}";

    Answer withLength = post("/api/v1/agents/a1/memory/context", big);
    Answer chunked =
        send(
            request("/api/v1/agents/a1/memory/context")
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8)))));

    assertBadRequest(withLength, "body");
    assertThat(withLength.json().get("message").asString()).contains("max-body-bytes");
    assertBadRequest(chunked, "body");
    assertThat(chunked.json().get("message").asString()).contains("max-body-bytes");
  }

  // ---- not found, method not allowed

  @Test
  void unknownProvidersToolsPluginsAndRoutesAre404WithJson() {
    Answer provider = post("/api/v1/agents/a1/tools/nope/echo", "{}");
    Answer tool = post("/api/v1/agents/a1/tools/fixture/nope", "{}");
    Answer plugin = post("/api/v1/plugins/nope/reload", "");
    Answer route = get("/api/v1/nothing-here");

    for (Answer answer : List.of(provider, tool, plugin, route)) {
      assertThat(answer.status()).as(answer.raw().body()).isEqualTo(404);
      assertThat(answer.json().get("error").asString()).isEqualTo("not_found");
    }
    assertThat(provider.json().get("message").asString()).contains("nope");
  }

  @Test
  void aWrongMethodIs405WithJson() {
    Answer answer = get("/api/v1/agents/a1/memory/context");

    assertThat(answer.status()).isEqualTo(405);
    assertThat(answer.json().get("error").asString()).isEqualTo("method_not_allowed");
    assertThat(answer.raw().headers().firstValue("Allow")).hasValue("POST");
  }

  // ---- tools

  @Test
  void toolsAreListedWithParsedSchemasAndCalledWithTheOwner() {
    Answer tools = get("/api/v1/agents/a1/tools");
    Answer echo = post("/api/v1/agents/a1/tools/fixture/echo?ownerKey=user:7", "{\"text\":\"hi\"}");
    Answer echoOwnerInBody =
        post("/api/v1/agents/a1/tools/fixture/echo", "{\"text\":\"hi\",\"ownerKey\":\"user:8\"}");
    Answer conflict = post("/api/v1/agents/a1/tools/fixture/conflict", "{}");
    Answer badOwner = post("/api/v1/agents/a1/tools/fixture/echo?ownerKey=Nope", "{}");

    assertThat(tools.status()).isEqualTo(200);
    JsonNode echoSpec = byId(tools.json().get("tools"), "name", "echo");
    assertThat(echoSpec.get("provider").asString()).isEqualTo("fixture");
    assertThat(echoSpec.get("inputSchema").get("type").asString()).isEqualTo("object");
    assertThat(echoSpec.get("effect").asString()).isEqualTo("write");
    assertThat(byId(tools.json().get("tools"), "name", "search_echo").get("effect").asString())
        .isEqualTo("read");
    assertThat(byId(tools.json().get("tools"), "name", "conflict").get("effect").asString())
        .as("a tool built without an effect")
        .isEqualTo("undeclared");
    assertThat(echo.status()).as(echo.raw().body()).isEqualTo(200);
    assertThat(echo.json().get("arguments").get("text").asString()).isEqualTo("hi");
    assertThat(echo.json().get("owner").asString()).isEqualTo("user:7");
    assertThat(echoOwnerInBody.json().get("owner").asString()).isEqualTo("user:8");
    assertThat(echoOwnerInBody.json().get("arguments").has("ownerKey")).isFalse();
    assertThat(conflict.status()).isEqualTo(409);
    assertThat(conflict.json().get("error").asString()).isEqualTo("conflict");
    assertBadRequest(badOwner, "ownerKey");
  }

  @Test
  void metricsAndInfoAreExposed() {
    post("/api/v1/agents/a1/memory/context", CONTEXT_BODY);

    Answer metric = get("/actuator/metrics/memstack.provider.calls?tag=provider:fixture");
    Answer info = get("/actuator/info");

    assertThat(metric.status()).as(metric.raw().body()).isEqualTo(200);
    assertThat(metric.raw().body()).contains("\"hook\"").contains("prefetch");
    assertThat(info.json().get("app").get("version").asString()).isEqualTo("0.1.0");
  }

  // ---- plugin lifecycle

  @Test
  void aStoppedPluginsProviderIsReportedDisabledUntilThePluginStartsAgain() {
    Answer stopped = post("/api/v1/plugins/" + FixturePlugin.ID + "/stop", "");
    try {
      assertThat(stopped.status()).as(stopped.raw().body()).isEqualTo(200);
      assertThat(stopped.json().get("state").asString()).isEqualTo("stopped");
      Answer context = post("/api/v1/agents/a1/memory/context", CONTEXT_BODY);
      assertThat(context.status()).isEqualTo(200);
      assertThat(byId(context.json().get("providers"), "id", "fixture").get("status").asString())
          .isEqualTo("disabled");
      JsonNode instance = byId(get("/api/v1/providers").json().get("providers"), "id", "fixture");
      assertThat(instance.get("state").asString()).isEqualTo("stopped");
      assertThat(post("/api/v1/agents/a1/tools/fixture/echo", "{}").status()).isEqualTo(404);
    } finally {
      Answer started = post("/api/v1/plugins/" + FixturePlugin.ID + "/start", "");
      assertThat(started.status()).as(started.raw().body()).isEqualTo(200);
    }
    Answer context = post("/api/v1/agents/a1/memory/context", CONTEXT_BODY);
    assertThat(byId(context.json().get("providers"), "id", "fixture").get("status").asString())
        .isEqualTo("ok");
    assertThat(
            get("/api/v1/plugins/" + FixturePlugin.ID)
                .json()
                .get("providerTypes")
                .get(0)
                .asString())
        .isEqualTo("fixture");
  }

  // ---- reload under load

  @Test
  void reloadingAPluginWhileContextCallsRunFailsNoneOfThem() throws Exception {
    AtomicBoolean go = new AtomicBoolean(true);
    AtomicInteger calls = new AtomicInteger();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    List<Thread> callers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Thread caller =
          new Thread(
              () -> {
                while (go.get()) {
                  Answer answer = post("/api/v1/agents/a1/memory/context", CONTEXT_BODY);
                  calls.incrementAndGet();
                  if (answer.status() != 200) {
                    failures.add(answer.status() + " " + answer.raw().body());
                  }
                }
              });
      caller.start();
      callers.add(caller);
    }
    List<Answer> reloads = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Thread.sleep(150);
      reloads.add(post("/api/v1/plugins/" + FixturePlugin.ID + "/reload", ""));
    }
    Thread.sleep(150);
    go.set(false);
    for (Thread caller : callers) {
      caller.join(20_000);
    }

    assertThat(reloads).allSatisfy(r -> assertThat(r.status()).as(r.raw().body()).isEqualTo(200));
    assertThat(reloads.get(2).json().get("state").asString()).isEqualTo("started");
    assertThat(failures).isEmpty();
    assertThat(calls.get()).isGreaterThan(6);
    Answer after = post("/api/v1/agents/a1/memory/context", CONTEXT_BODY);
    assertThat(byId(after.json().get("providers"), "id", "fixture").get("status").asString())
        .isEqualTo("ok");
  }
}
