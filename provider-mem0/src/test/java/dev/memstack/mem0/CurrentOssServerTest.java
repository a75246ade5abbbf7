package dev.memstack.mem0;

import static dev.memstack.mem0.TestSupport.AGENT;
import static dev.memstack.mem0.TestSupport.OTHER_AGENT;
import static dev.memstack.mem0.TestSupport.USER_1;
import static dev.memstack.mem0.TestSupport.USER_2;
import static dev.memstack.mem0.TestSupport.config;
import static dev.memstack.mem0.TestSupport.provider;
import static dev.memstack.mem0.TestSupport.request;
import static dev.memstack.mem0.TestSupport.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.Capability;
import dev.memstack.spi.ProviderHealth;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

@DisplayName("Against the current OSS server")
class CurrentOssServerTest {

  private static final String KEY = "m0sk_current-oss-test-key";

  @TempDir Path dataDir;
  private FakeMem0Server server;
  private Mem0MemoryProvider provider;

  @BeforeEach
  void start() {
    server = FakeMem0Server.start(FakeMem0Server.Generation.CURRENT_OSS).requireApiKey(KEY);
    provider = provider(config(server, "api-key", KEY), dataDir);
  }

  @AfterEach
  void stop() {
    provider.close();
    server.close();
  }

  @Test
  @DisplayName("search sends ids top-level and in filters, both count fields and the key header")
  void searchRequestCarriesEveryFieldEveryServerGenerationReads() {
    provider.prefetch(request(USER_1, "  what tea do I like?  ", 3));

    FakeMem0Server.Request search = server.last("POST", "/search");
    assertThat(search.header("X-API-Key")).isEqualTo(KEY);
    assertThat(search.header("Authorization")).isNull();
    assertThat(search.header("Content-Type")).isEqualTo("application/json");
    JsonNode body = search.body();
    assertThat(body.get("query").asString()).isEqualTo("what tea do I like?");
    assertThat(body.get("user_id").asString()).isEqualTo("user:1");
    assertThat(body.get("agent_id").asString()).isEqualTo("helper");
    assertThat(body.get("filters").get("user_id").asString()).isEqualTo("user:1");
    assertThat(body.get("filters").get("agent_id").asString()).isEqualTo("helper");
    assertThat(body.get("top_k").asInt()).isEqualTo(3);
    assertThat(body.get("limit").asInt()).isEqualTo(3);
    assertThat(body.has("threshold")).as("threshold only when configured").isFalse();
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  @DisplayName("the count sent is the request's limit capped by max-results")
  void theCountSentIsCappedByMaxResults() {
    provider.prefetch(request(USER_1, "tea", 50));

    JsonNode body = server.last("POST", "/search").body();
    assertThat(body.get("top_k").asInt()).isEqualTo(5);
    assertThat(body.get("limit").asInt()).isEqualTo(5);
  }

  @Test
  @DisplayName("a configured threshold is sent")
  void aConfiguredThresholdIsSent(@TempDir Path otherDir) {
    try (Mem0MemoryProvider withThreshold =
        provider(config(server, "api-key", KEY, "threshold", "0.35"), otherDir)) {
      withThreshold.prefetch(request(USER_1, "tea", 2));
    }
    assertThat(server.last("POST", "/search").body().get("threshold").asDouble()).isEqualTo(0.35);
  }

  @Test
  @DisplayName("hits become PERSONAL recall items of the owner, framed as Mem0 Recall")
  void hitsBecomePersonalRecallItemsOfTheOwner() {
    FakeMem0Server.Stored oolong =
        server.seed("user:1", "helper", "Prefers oolong tea without sugar", Map.of());
    server.seed("user:1", "helper", "Drinks tea every morning at seven", Map.of());
    server.seed("user:2", "helper", "Prefers oolong tea too", Map.of());
    server.seed("user:1", "planner", "Prefers oolong tea in the planner agent", Map.of());

    Recall recall = provider.prefetch(request(USER_1, "oolong tea preference", 5));

    assertThat(recall.items()).hasSize(2);
    RecallItem first = recall.items().get(0);
    assertThat(first.text()).isEqualTo("[Mem0 Recall] Prefers oolong tea without sugar");
    assertThat(first.scope()).isEqualTo(Scope.PERSONAL);
    assertThat(first.owner()).isEqualTo(USER_1);
    assertThat(first.source()).isEqualTo("mem0");
    assertThat(first.score()).isEqualTo(2.0 / 3.0);
    assertThat(first.createdAt()).isEqualTo(Instant.parse("2026-03-02T09:15:00Z"));
    assertThat(first.metadata()).containsEntry("memory_id", oolong.id);
    assertThat(recall.items().get(1).score()).isLessThanOrEqualTo(first.score());
    assertThat(recall.items()).allMatch(item -> !item.text().contains("planner"));
  }

  @Test
  @DisplayName("hits that name another user are dropped even if the server returns them")
  void hitsNamingAnotherUserAreDropped() {
    server.override(
        "POST",
        "/search",
        (exchange, request) ->
            FakeMem0Server.sendRaw(
                exchange,
                200,
                ("{\"results\":["
                        + "{\"id\":\"a\",\"memory\":\"mine\",\"score\":0.9,\"user_id\":\"user:1\"},"
                        + "{\"id\":\"b\",\"memory\":\"theirs\",\"score\":0.8,\"user_id\":\"user:2\"},"
                        + "{\"id\":\"c\",\"memory\":\"other agent\",\"score\":0.7,"
                        + "\"user_id\":\"user:1\",\"agent_id\":\"planner\"},"
                        + "{\"id\":\"d\",\"memory\":\"untagged\",\"score\":0.6}]}")
                    .getBytes()));

    Recall recall = provider.prefetch(request(USER_1, "anything", 5));

    assertThat(recall.items())
        .extracting(RecallItem::text)
        .containsExactly("[Mem0 Recall] mine", "[Mem0 Recall] untagged");
  }

  @Test
  @DisplayName("scores outside 0..1 are clamped, the server's own kept in metadata, order kept")
  void scoresOutsideTheRangeAreClamped() {
    server.override(
        "POST",
        "/search",
        (exchange, request) ->
            FakeMem0Server.sendRaw(
                exchange,
                200,
                ("{\"results\":["
                        + "{\"id\":\"a\",\"memory\":\"high\",\"score\":3.5},"
                        + "{\"id\":\"b\",\"memory\":\"mid\",\"score\":0.4},"
                        + "{\"id\":\"c\",\"memory\":\"negative\",\"score\":-0.2}]}")
                    .getBytes()));

    Recall recall = provider.prefetch(request(USER_1, "anything", 5));

    assertThat(recall.items())
        .extracting(RecallItem::text)
        .containsExactly("[Mem0 Recall] high", "[Mem0 Recall] mid", "[Mem0 Recall] negative");
    assertThat(recall.items()).extracting(RecallItem::score).containsExactly(1.0, 0.4, 0.0);
    assertThat(recall.items().get(0).metadata()).containsEntry("server_score", "3.5");
    assertThat(recall.items().get(1).metadata()).doesNotContainKey("server_score");
  }

  @Test
  @DisplayName("without an owner, with a blank query or with search disabled nothing is called")
  void withoutOwnerNothingIsCalled(@TempDir Path otherDir) {
    server.seed("user:1", "helper", "Prefers oolong tea", Map.of());

    assertThat(provider.prefetch(request(null, "oolong tea", 5)).items()).isEmpty();
    assertThat(provider.prefetch(request(USER_1, "   ", 5)).items()).isEmpty();
    try (Mem0MemoryProvider searchOff =
        provider(config(server, "api-key", KEY, "search-enabled", "false"), otherDir)) {
      assertThat(searchOff.prefetch(request(USER_1, "oolong tea", 5)).items()).isEmpty();
    }
    assertThat(server.requests()).isEmpty();
  }

  @Test
  @DisplayName("a synced turn reaches the server with user_id, agent_id and the turn's ids")
  void aSyncedTurnReachesTheServerWithOwnerAgentAndIds() {
    provider.syncTurn(turn("turn-1", USER_1, "I moved to Lisbon", "Noted, Lisbon it is."));

    FakeMem0Server.Request add = server.last("POST", "/memories");
    assertThat(add.header("X-API-Key")).isEqualTo(KEY);
    JsonNode body = add.body();
    assertThat(body.get("user_id").asString()).isEqualTo("user:1");
    assertThat(body.get("agent_id").asString()).isEqualTo("helper");
    assertThat(body.has("run_id")).isFalse();
    assertThat(body.get("infer").asBoolean()).isTrue();
    JsonNode messages = body.get("messages");
    assertThat(messages).hasSize(2);
    assertThat(messages.get(0).get("role").asString()).isEqualTo("user");
    assertThat(messages.get(0).get("content").asString()).isEqualTo("I moved to Lisbon");
    assertThat(messages.get(1).get("role").asString()).isEqualTo("assistant");
    assertThat(messages.get(1).get("content").asString()).isEqualTo("Noted, Lisbon it is.");
    JsonNode metadata = body.get("metadata");
    assertThat(metadata.get("conversation_id").asString()).isEqualTo("conv-7");
    assertThat(metadata.get("turn_id").asString()).isEqualTo("turn-1");
    assertThat(metadata.get("memstack_agent").asString()).isEqualTo("helper");
    assertThat(metadata.get("trigger_source").asString()).isEqualTo("web");
    assertThat(server.memoriesOf("user:1")).extracting(m -> m.text).contains("I moved to Lisbon");
  }

  @Test
  @DisplayName("an empty side of a turn is not sent as a message")
  void anEmptySideOfATurnIsNotSent() {
    provider.syncTurn(turn("turn-2", USER_1, "Remember my locker code is 4711", ""));

    JsonNode messages = server.last("POST", "/memories").body().get("messages");
    assertThat(messages).hasSize(1);
    assertThat(messages.get(0).get("role").asString()).isEqualTo("user");
  }

  @Test
  @DisplayName("a turn delivered again, also after a restart, is sent once")
  void aTurnDeliveredAgainIsSentOnce() {
    var turn = turn("turn-3", USER_1, "My cat is called Miso", "What a nice name.");
    provider.syncTurn(turn);
    provider.syncTurn(turn);
    provider.close();
    provider = provider(config(server, "api-key", KEY), dataDir);
    provider.syncTurn(turn);

    assertThat(server.requests("POST", "/memories")).hasSize(1);
    assertThat(Files.exists(dataDir.resolve(SentTurnLog.FILE_NAME))).isTrue();
  }

  @Test
  @DisplayName("sync-enabled=false sends nothing")
  void syncDisabledSendsNothing(@TempDir Path otherDir) {
    try (Mem0MemoryProvider syncOff =
        provider(config(server, "api-key", KEY, "sync-enabled", "false"), otherDir)) {
      syncOff.syncTurn(turn("turn-4", USER_1, "hello", "hi"));
    }
    assertThat(server.requests()).isEmpty();
  }

  @Test
  @DisplayName("forget erases the owner on the server and nobody else")
  void forgetErasesTheOwnerOnTheServer() {
    server.seed("user:1", "helper", "fact one", Map.of());
    server.seed("user:1", "planner", "fact two", Map.of());
    server.seed("user:2", "helper", "fact three", Map.of());

    long removed = provider.forget(USER_1);

    assertThat(removed).isEqualTo(2);
    FakeMem0Server.Request delete = server.last("DELETE", "/memories");
    assertThat(delete.query()).containsEntry("user_id", "user:1");
    assertThat(delete.header("X-API-Key")).isEqualTo(KEY);
    assertThat(server.memoriesOf("user:1")).isEmpty();
    assertThat(server.memoriesOf("user:2")).hasSize(1);
  }

  @Test
  @DisplayName("forget with a key that may not erase in one call deletes memory by memory")
  void forgetWithoutAdminRoleDeletesOneByOne() {
    server.adminKey("m0sk_the-admin-key-of-this-server");
    server.seed("user:1", "helper", "fact one", Map.of());
    server.seed("user:1", "planner", "fact two", Map.of());
    server.seed("user:2", "helper", "fact three", Map.of());

    long removed = provider.forget(USER_1);

    assertThat(removed).isEqualTo(2);
    assertThat(server.requests("DELETE", "/memories")).hasSize(1);
    assertThat(server.requests().stream().filter(r -> r.path().startsWith("/memories/")))
        .hasSize(2);
    assertThat(server.memoriesOf("user:1")).isEmpty();
    assertThat(server.memoriesOf("user:2")).hasSize(1);
  }

  @Test
  @DisplayName("health lists an owner that has no memories and reports UP")
  void healthIsUp() {
    ProviderHealth health = provider.health();

    assertThat(health.status()).isEqualTo(ProviderHealth.Status.UP);
    assertThat(health.detail()).contains("oss server at " + server.baseUrl());
    FakeMem0Server.Request check = server.last("GET", "/memories");
    assertThat(check.query()).containsEntry("user_id", Mem0Client.HEALTH_USER_ID);
    assertThat(check.header("X-API-Key")).isEqualTo(KEY);
  }

  @Test
  @DisplayName("declares forget and personal memory; turn recall only when storing verbatim")
  void declaresItsCapabilities(@TempDir Path otherDir) {
    assertThat(provider.capabilities())
        .containsExactlyInAnyOrder(Capability.FORGET, Capability.PERSONAL_MEMORY);
    try (Mem0MemoryProvider verbatim =
        provider(config(server, "api-key", KEY, "infer", "false"), otherDir)) {
      assertThat(verbatim.capabilities()).contains(Capability.RECALLS_TURNS);
    }
    assertThat(provider.systemPromptBlock(AGENT)).isEmpty();
  }

  @Test
  @DisplayName("mem0_add and mem0_search act for the call's owner and agent")
  void toolsActForTheCallsOwnerAndAgent() {
    String added =
        provider.callTool(
            new ToolCall(
                AGENT, USER_1, "mem0_add", "{\"text\":\"Allergic to peanuts\",\"infer\":false}"));
    assertThat(added).contains("\"accepted\":true").contains("\"event\":\"ADD\"");
    JsonNode add = server.last("POST", "/memories").body();
    assertThat(add.get("user_id").asString()).isEqualTo("user:1");
    assertThat(add.get("agent_id").asString()).isEqualTo("helper");
    assertThat(add.get("infer").asBoolean()).isFalse();

    String found =
        provider.callTool(
            new ToolCall(AGENT, USER_1, "mem0_search", "{\"query\":\"peanuts\",\"limit\":2}"));
    assertThat(found).contains("Allergic to peanuts").contains("\"score\":1.0");
    assertThat(server.last("POST", "/search").body().get("top_k").asInt()).isEqualTo(2);

    String otherAgent =
        provider.callTool(
            new ToolCall(OTHER_AGENT, USER_1, "mem0_search", "{\"query\":\"peanuts\"}"));
    assertThat(otherAgent).doesNotContain("peanuts");
    String otherOwner =
        provider.callTool(new ToolCall(AGENT, USER_2, "mem0_search", "{\"query\":\"peanuts\"}"));
    assertThat(otherOwner).doesNotContain("peanuts");
  }

  @Test
  @DisplayName("tools publish JSON schemas and refuse bad arguments with a clear message")
  void toolsRefuseBadArguments() {
    assertThat(provider.tools())
        .extracting(spec -> spec.name())
        .containsExactly("mem0_search", "mem0_add");
    assertThat(provider.tools().get(0).inputSchema()).contains("\"required\":[\"query\"]");
    assertThat(provider.tools().get(1).inputSchema()).contains("\"required\":[\"text\"]");

    assertThatThrownBy(() -> provider.callTool(new ToolCall(AGENT, null, "mem0_search", "{}")))
        .isInstanceOf(ToolException.class)
        .hasMessageContaining("needs an owner");
    assertThatThrownBy(
            () -> provider.callTool(new ToolCall(AGENT, USER_1, "mem0_search", "{\"q\":\"x\"}")))
        .isInstanceOfSatisfying(
            ToolException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
              assertThat(e.field()).isEqualTo("q");
            })
        .hasMessageContaining("q is not an argument of this tool");
    assertThatThrownBy(
            () ->
                provider.callTool(
                    new ToolCall(AGENT, USER_1, "mem0_search", "{\"query\":\"x\",\"limit\":0}")))
        .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.field()).isEqualTo("limit"));
    assertThatThrownBy(
            () ->
                provider.callTool(
                    new ToolCall(
                        AGENT,
                        USER_1,
                        "mem0_add",
                        "{\"text\":\"Sam likes tea\"}",
                        java.util.Set.of())))
        .isInstanceOfSatisfying(
            ToolException.class, e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.FORBIDDEN));
    assertThatThrownBy(() -> provider.callTool(new ToolCall(AGENT, USER_1, "mem0_add", "[1]")))
        .hasMessageContaining("must be a JSON object");
    assertThatThrownBy(
            () -> provider.callTool(new ToolCall(AGENT, USER_1, "mem0_forget_all", "{}")))
        .isInstanceOfSatisfying(
            ToolException.class, e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.NOT_FOUND));
    assertThat(server.requests()).isEmpty();
  }

  @Test
  @DisplayName("every call after close fails with IllegalStateException")
  void callsAfterCloseFail() {
    provider.close();

    assertThatThrownBy(() -> provider.prefetch(request(USER_1, "x", 1)))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> provider.syncTurn(turn("t", USER_1, "a", "b")))
        .isInstanceOf(IllegalStateException.class);
    assertThat(provider.health().status()).isEqualTo(ProviderHealth.Status.DOWN);
  }

  @Test
  @DisplayName("a request deadline shorter than timeout-ms bounds the search")
  void theRequestDeadlineBoundsTheSearch() {
    server.override(
        "POST",
        "/search",
        (exchange, request) -> {
          Thread.sleep(1500);
          FakeMem0Server.sendRaw(exchange, 200, "{\"results\":[]}".getBytes());
        });

    long start = System.nanoTime();
    assertThatThrownBy(
            () -> provider.prefetch(request(AGENT, USER_1, "tea", 5, Duration.ofMillis(300))))
        .isInstanceOf(Mem0Exception.class)
        .hasMessageContaining("no complete answer within");
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(tookMs).isBetween(250L, 800L);
  }
}
