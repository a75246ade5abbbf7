package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.plugin.fixture.FixturePlugin;
import dev.memstack.host.testing.Concurrently;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The host end to end over HTTP: the three real plugin zips plus the test fixture plugin, loaded
 * from a temporary folder by the real plugin manager, the real stack and the REST API. The
 * embedding model is the deterministic test embedder, so no model loads. Every request carries an
 * admin token; what tokens allow is {@code SecurityApiTest}'s subject.
 */
@HostTest
class HostApiTest {

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.allPlugins("api")
          .withFixturePlugin()
          .with("memstack.providers.fixture.type", "fixture")
          .with("memstack.providers.fixture.order", "5")
          .with("memstack.providers.fixture.config.prefetch-delay", "5ms")
          .with("memstack.api.max-body-bytes", "64KB");

  @Autowired HostClient api;

  private static final String CONTEXT_BODY =
      "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"query\":\"hello\"}";

  // ---- helpers

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
    assertThat(answer.status()).as(answer.body()).isEqualTo(400);
    assertThat(answer.json().get("error").asString()).isEqualTo("bad_request");
    assertThat(answer.json().get("field").asString()).isEqualTo(field);
    assertThat(answer.json().get("message").asString()).isNotBlank();
  }

  // ---- health, plugins, providers

  @Test
  void healthIsUpWithAnEntryPerRunningProvider() {
    Answer health = api.get("/actuator/health").expect(200);
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
    Answer readiness = api.get("/actuator/health/readiness").expect(200);
    assertThat(readiness.json().get("components").propertyNames())
        .containsExactlyInAnyOrder("readinessState", "outbox", "models");
  }

  @Test
  void theThreePluginsAreListedAsStartedWithTheirTypes() {
    Answer plugins = api.get("/api/v1/plugins").expect(200);
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
    Answer providers = api.get("/api/v1/providers").expect(200);
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
    assertThat(providers.body()).doesNotContain("prefetch-delay").doesNotContain("5ms");
  }

  // ---- context and turns

  @Test
  void aContextCallAnswersWithTheWorkspacePromptAndEveryProviderOk() {
    Answer answer = api.post("/api/v1/agents/a1/memory/context", CONTEXT_BODY).expect(200);
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
        api.post(
                "/api/v1/agents/a1/memory/turns",
                "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"userMessage\":\"I like tea\","
                    + "\"assistantReply\":\"Noted.\",\"triggerSource\":\"web\"}")
            .expect(202);
    String turnId = answer.json().get("turnId").asString();
    assertThat(turnId).isNotBlank();
    await().atMost(Duration.ofSeconds(10)).until(() -> fixtureTurns().contains(turnId));
  }

  @Test
  void feedbackNamesRecalledItemsByTheirIdAndReachesTheProvidersThatTakeIt() {
    Answer turn =
        api.post(
                "/api/v1/agents/a1/memory/turns",
                "{\"ownerKey\":\"user:7\",\"conversationId\":\"c7\",\"userMessage\":"
                    + "\"The violet kestrel nests by the quarry\",\"assistantReply\":\"\","
                    + "\"triggerSource\":\"web\"}")
            .expect(202);
    String body = "{\"ownerKey\":\"user:7\",\"query\":\"violet kestrel quarry\"}";
    JsonNode[] item = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Answer context = api.post("/api/v1/agents/a1/memory/context", body);
              assertThat(context.json().get("ownerPrompt").isString()).isTrue();
              item[0] = byId(context.json().get("recall"), "provider", "vector");
            });
    String id = item[0].get("metadata").get("id").asString();
    assertThat(id).isNotBlank();

    Answer applied =
        api.post(
                "/api/v1/agents/a1/memory/feedback",
                "{\"ownerKey\":\"user:7\",\"used\":[{\"provider\":\"vector\",\"id\":\""
                    + id
                    + "\"},{\"provider\":\"builtin\",\"id\":\"x\"}]}")
            .expect(200);
    assertThat(applied.json().get("applied").get("vector").asInt()).isEqualTo(1);
    assertThat(applied.json().get("applied").get("builtin").asInt())
        .as("builtin takes no feedback")
        .isEqualTo(-1);
    Answer foreign =
        api.post(
            "/api/v1/agents/a1/memory/feedback",
            "{\"ownerKey\":\"user:8\",\"used\":[{\"provider\":\"vector\",\"id\":\"" + id + "\"}]}");
    assertThat(foreign.json().get("applied").get("vector").asInt())
        .as("another owner's personal item")
        .isZero();

    String feedback = "/api/v1/agents/a1/memory/feedback";
    assertBadRequest(api.post(feedback, "{\"ownerKey\":\"user:7\"}"), "used");
    assertBadRequest(api.post(feedback, "{\"ownerKey\":\"user:7\",\"used\":[]}"), "used");
    assertBadRequest(
        api.post(feedback, "{\"ownerKey\":\"user:7\",\"used\":[{\"provider\":\"vector\"}]}"),
        "used[0].id");
    assertBadRequest(api.post(feedback, "{\"ownerKey\":\"user:7\",\"used\":[7]}"), "used[0]");
    assertBadRequest(
        api.post(
            feedback, "{\"ownerKey\":\"user:7\",\"used\":[{\"provider\":\"nope\",\"id\":\"x\"}]}"),
        "used");
  }

  @Test
  void wrongFeedbackLowersTrustUntilTheItemIsSuppressedForThatOwner() {
    api.post(
            "/api/v1/agents/a1/memory/turns",
            "{\"ownerKey\":\"user:9\",\"conversationId\":\"c9\",\"userMessage\":"
                + "\"The amber heron fishes below the weir\",\"assistantReply\":\"\","
                + "\"triggerSource\":\"web\"}")
        .expect(202);
    String body = "{\"ownerKey\":\"user:9\",\"query\":\"amber heron weir\",\"explain\":true}";
    JsonNode[] item = new JsonNode[1];
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                item[0] =
                    byId(
                        api.post("/api/v1/agents/a1/memory/context", body).json().get("recall"),
                        "provider",
                        "vector"));
    String id = item[0].get("metadata").get("id").asString();
    assertThat(item[0].get("metadata").get("stack.trust").asString()).isEqualTo("0.0000");
    assertThat(item[0].get("metadata").get("stack.trust.adjustment").asString())
        .isEqualTo("0.0000");
    String feedback = "/api/v1/agents/a1/memory/feedback";
    String vectorItem = "{\"provider\":\"vector\",\"id\":\"" + id + "\"}";

    Answer wrong =
        api.post(
                feedback,
                "{\"ownerKey\":\"user:9\",\"wrong\":["
                    + vectorItem
                    + ",{\"provider\":\"builtin\",\"id\":\"x\"}]}")
            .expect(200);
    assertThat(wrong.json().get("wrongApplied").get("vector").asInt()).isEqualTo(1);
    assertThat(wrong.json().get("wrongApplied").get("builtin").asInt())
        .as("builtin does not claim TRUST")
        .isEqualTo(-1);
    assertThat(wrong.json().get("applied").isEmpty()).isTrue();
    JsonNode distrusted =
        byId(
            api.post("/api/v1/agents/a1/memory/context", body).json().get("recall"),
            "provider",
            "vector");
    assertThat(distrusted.get("metadata").get("signal.trust").asString()).isEqualTo("-0.4621");
    assertThat(distrusted.get("metadata").get("stack.trust").asString()).isEqualTo("-0.4621");

    Answer both =
        api.post(
                feedback,
                "{\"ownerKey\":\"user:9\",\"used\":["
                    + vectorItem
                    + "],\"wrong\":["
                    + vectorItem
                    + "]}")
            .expect(200);
    assertThat(both.json().get("applied").get("vector").asInt()).isEqualTo(1);
    assertThat(both.json().get("wrongApplied").get("vector").asInt()).isEqualTo(1);
    Answer foreign =
        api.post(feedback, "{\"ownerKey\":\"user:10\",\"wrong\":[" + vectorItem + "]}").expect(200);
    assertThat(foreign.json().get("wrongApplied").get("vector").asInt())
        .as("another owner's personal item")
        .isZero();
    api.post(feedback, "{\"ownerKey\":\"user:9\",\"wrong\":[" + vectorItem + "]}").expect(200);

    JsonNode recall = api.post("/api/v1/agents/a1/memory/context", body).json().get("recall");
    assertThat(StreamSupport.stream(recall.spliterator(), false))
        .as("marked wrong three times: suppressed for this owner")
        .noneMatch(
            n -> n.get("metadata").has("id") && id.equals(n.get("metadata").get("id").asString()));

    assertBadRequest(api.post(feedback, "{\"ownerKey\":\"user:9\"}"), "used");
    assertBadRequest(api.post(feedback, "{\"ownerKey\":\"user:9\",\"wrong\":[]}"), "wrong");
    assertBadRequest(
        api.post(feedback, "{\"ownerKey\":\"user:9\",\"wrong\":{\"vector\":[\"x\"]}}"), "wrong");
    assertBadRequest(
        api.post(
            feedback,
            "{\"ownerKey\":\"user:9\",\"wrong\":[{\"provider\":\"vector\",\"id\":\"x\","
                + "\"why\":1}]}"),
        "wrong[0].why");
    assertBadRequest(
        api.post(
            feedback, "{\"ownerKey\":\"user:9\",\"wrong\":[{\"provider\":\"nope\",\"id\":\"x\"}]}"),
        "wrong");
    assertBadRequest(
        api.post(
            feedback,
            "{\"ownerKey\":\"user:9\",\"used\":[" + vectorItem + "],\"wrong\":[{\"provider\":7}]}"),
        "wrong[0].provider");
  }

  @Test
  void aRejectedTurnIsNeverStored() throws IOException {
    Answer rejected =
        api.post(
            "/api/v1/agents/a1/memory/turns",
            "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"userMessage\":\"x\","
                + "\"assistantReply\":\"y\",\"triggerSource\":\"telegraph\",\"turnId\":\"rejected-1\"}");
    Answer accepted =
        api.post(
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
    Path turns = HOST.data().resolve("fixture").resolve("turns.txt");
    return Files.exists(turns) ? Files.readString(turns) : "";
  }

  @Test
  void aContextCallMayRecallFromNamedProvidersOnly() {
    Answer answer =
        api.post(
                "/api/v1/agents/a1/memory/context",
                "{\"ownerKey\":\"user:1\",\"query\":\"hello\",\"providers\":[\"fixture\"]}")
            .expect(200);
    JsonNode providers = answer.json().get("providers");
    assertThat(byId(providers, "id", "fixture").get("status").asString()).isEqualTo("ok");
    assertThat(byId(providers, "id", "builtin").get("status").asString()).isEqualTo("skipped");
    assertThat(byId(providers, "id", "vector").get("status").asString()).isEqualTo("skipped");
    assertThat(texts(answer.json().get("recall"), "provider")).containsOnly("fixture");
    // the shared memory still comes from builtin
    assertThat(answer.json().get("systemPrompt").asString()).contains("--- AGENTS.md ---");
  }

  @Test
  void badProvidersAreBadRequestsNamingProviders() {
    for (String providers : List.of("\"fixture\"", "[]", "[1]", "[\" \"]", "[\"nosuch\"]")) {
      Answer answer =
          api.post(
              "/api/v1/agents/a1/memory/context",
              "{\"ownerKey\":\"user:1\",\"query\":\"q\",\"providers\":" + providers + "}");
      assertBadRequest(answer, "providers");
    }
    Answer unknown =
        api.post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"user:1\",\"query\":\"q\",\"providers\":[\"nosuch\"]}");
    assertThat(unknown.json().get("message").asString()).contains("'nosuch'").contains("builtin");
  }

  // ---- bad requests

  @Test
  void anOwnerKeyWithSpacesIsABadRequestNamingOwnerKey() {
    Answer answer =
        api.post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"no spaces allowed\",\"conversationId\":\"c1\",\"query\":\"hello\"}");

    assertBadRequest(answer, "ownerKey");
    assertThat(answer.json().get("message").asString()).contains("ownerKey");
  }

  @Test
  void aBadAgentIdIsABadRequestNamingAgentId() {
    assertBadRequest(api.post("/api/v1/agents/a%20b/memory/context", CONTEXT_BODY), "agentId");
  }

  @Test
  void missingAndMistypedFieldsAreBadRequestsNamingTheField() {
    assertBadRequest(
        api.post("/api/v1/agents/a1/memory/context", "{\"ownerKey\":\"user:1\"}"), "query");
    assertBadRequest(
        api.post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"user:1\",\"query\":\"q\",\"limit\":\"ten\"}"),
        "limit");
    assertBadRequest(
        api.post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"user:1\",\"query\":\"q\",\"limit\":500}"),
        "limit");
    assertBadRequest(
        api.post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"user:1\",\"query\":\"q\",\"conversationId\":\"a/b\"}"),
        "conversationId");
    assertBadRequest(
        api.post(
            "/api/v1/agents/a1/memory/turns",
            "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"userMessage\":\"\","
                + "\"assistantReply\":\"\",\"triggerSource\":\"web\"}"),
        "userMessage");
    assertBadRequest(api.post("/api/v1/agents/a1/memory/context", "[1,2]"), "body");
  }

  @Test
  void malformedJsonIsABadRequest() {
    Answer answer = api.post("/api/v1/agents/a1/memory/context", "{\"ownerKey\": \"user:1\",");

    assertBadRequest(answer, "body");
    assertThat(answer.json().get("message").asString()).startsWith("malformed JSON");
  }

  @Test
  void aBodyOverTheLimitIsABadRequestWithOrWithoutContentLength() {
    String big =
        "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"query\":\""
            + "x".repeat(70_000)
            + "\"}";

    Answer withLength = api.post("/api/v1/agents/a1/memory/context", big);
    Answer chunked =
        api.send(
            api.request("/api/v1/agents/a1/memory/context")
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
    Answer provider = api.post("/api/v1/agents/a1/tools/nope/echo", "{}");
    Answer tool = api.post("/api/v1/agents/a1/tools/fixture/nope", "{}");
    Answer plugin = api.post("/api/v1/plugins/nope/reload", "");
    Answer route = api.get("/api/v1/nothing-here");

    for (Answer answer : List.of(provider, tool, plugin, route)) {
      assertThat(answer.status()).as(answer.body()).isEqualTo(404);
      assertThat(answer.json().get("error").asString()).isEqualTo("not_found");
    }
    assertThat(provider.json().get("message").asString()).contains("nope");
  }

  @Test
  void aWrongMethodIs405WithJson() {
    Answer answer = api.get("/api/v1/agents/a1/memory/context");

    assertThat(answer.status()).isEqualTo(405);
    assertThat(answer.json().get("error").asString()).isEqualTo("method_not_allowed");
    assertThat(answer.headers().firstValue("Allow")).hasValue("POST");
  }

  // ---- tools

  @Test
  void toolsAreListedWithParsedSchemasAndCalledWithTheOwner() {
    Answer tools = api.get("/api/v1/agents/a1/tools");
    Answer echo =
        api.post("/api/v1/agents/a1/tools/fixture/echo?ownerKey=user:7", "{\"text\":\"hi\"}");
    Answer echoOwnerInBody =
        api.post(
            "/api/v1/agents/a1/tools/fixture/echo", "{\"text\":\"hi\",\"ownerKey\":\"user:8\"}");
    Answer conflict = api.post("/api/v1/agents/a1/tools/fixture/conflict", "{}");
    Answer badOwner = api.post("/api/v1/agents/a1/tools/fixture/echo?ownerKey=Nope", "{}");

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
    assertThat(echo.status()).as(echo.body()).isEqualTo(200);
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
    api.post("/api/v1/agents/a1/memory/context", CONTEXT_BODY);

    Answer metric = api.get("/actuator/metrics/memstack.provider.calls?tag=provider:fixture");
    Answer info = api.get("/actuator/info");

    assertThat(metric.status()).as(metric.body()).isEqualTo(200);
    assertThat(metric.body()).contains("\"hook\"").contains("prefetch");
    assertThat(info.json().get("app").get("version").asString()).isEqualTo("0.1.0");
  }

  // ---- plugin lifecycle

  @Test
  void aStoppedPluginsProviderIsReportedDisabledUntilThePluginStartsAgain() {
    Answer stopped = api.post("/api/v1/plugins/" + FixturePlugin.ID + "/stop", "");
    try {
      assertThat(stopped.status()).as(stopped.body()).isEqualTo(200);
      assertThat(stopped.json().get("state").asString()).isEqualTo("stopped");
      Answer context = api.post("/api/v1/agents/a1/memory/context", CONTEXT_BODY).expect(200);
      assertThat(byId(context.json().get("providers"), "id", "fixture").get("status").asString())
          .isEqualTo("disabled");
      JsonNode instance =
          byId(api.get("/api/v1/providers").json().get("providers"), "id", "fixture");
      assertThat(instance.get("state").asString()).isEqualTo("stopped");
      assertThat(api.post("/api/v1/agents/a1/tools/fixture/echo", "{}").status()).isEqualTo(404);
    } finally {
      Answer started = api.post("/api/v1/plugins/" + FixturePlugin.ID + "/start", "").expect(200);
    }
    Answer context = api.post("/api/v1/agents/a1/memory/context", CONTEXT_BODY);
    assertThat(byId(context.json().get("providers"), "id", "fixture").get("status").asString())
        .isEqualTo("ok");
    assertThat(
            api.get("/api/v1/plugins/" + FixturePlugin.ID)
                .json()
                .get("providerTypes")
                .get(0)
                .asString())
        .isEqualTo("fixture");
  }

  // ---- reload under load

  @Test
  void reloadingAPluginWhileContextCallsRunFailsNoneOfThem() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    Concurrently callers =
        Concurrently.repeat(
            3,
            (caller, round) -> {
              Answer answer = api.post("/api/v1/agents/a1/memory/context", CONTEXT_BODY);
              calls.incrementAndGet();
              assertThat(answer.status()).as(answer.body()).isEqualTo(200);
            });
    List<Answer> reloads = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Thread.sleep(150);
      reloads.add(api.post("/api/v1/plugins/" + FixturePlugin.ID + "/reload", ""));
    }
    Thread.sleep(150);
    callers.stop(Duration.ofSeconds(20));

    assertThat(reloads).allSatisfy(r -> assertThat(r.status()).as(r.body()).isEqualTo(200));
    assertThat(reloads.get(2).json().get("state").asString()).isEqualTo("started");
    assertThat(callers.failures()).isEmpty();
    assertThat(calls.get()).isGreaterThan(6);
    Answer after = api.post("/api/v1/agents/a1/memory/context", CONTEXT_BODY);
    assertThat(byId(after.json().get("providers"), "id", "fixture").get("status").asString())
        .isEqualTo("ok");
  }
}
