package dev.memstack.mem0;

import static dev.memstack.mem0.TestSupport.OTHER_AGENT;
import static dev.memstack.mem0.TestSupport.USER_1;
import static dev.memstack.mem0.TestSupport.USER_2;
import static dev.memstack.mem0.TestSupport.config;
import static dev.memstack.mem0.TestSupport.provider;
import static dev.memstack.mem0.TestSupport.request;
import static dev.memstack.mem0.TestSupport.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.ProviderHealth;
import dev.memstack.spi.RecallItem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

@DisplayName("Against the Platform API (asynchronous adds)")
class PlatformApiTest {

  private static final String KEY = "m0-platform-test-key";

  @TempDir Path dataDir;
  private FakeMem0Server server;
  private Mem0MemoryProvider provider;

  @BeforeEach
  void start() {
    server = FakeMem0Server.start(FakeMem0Server.Generation.PLATFORM).requireApiKey(KEY);
    provider = provider(config(server, "api-key", KEY), dataDir);
  }

  @AfterEach
  void stop() {
    provider.close();
    server.close();
  }

  @Test
  @DisplayName(
      "a turn goes to /v3/memories/add/ with Token auth, user_id and the agent in metadata")
  void aTurnGoesToTheV3AddRoute() {
    provider.syncTurn(turn("turn-p1", USER_1, "I am vegetarian", "Got it."));

    FakeMem0Server.Request add = server.last("POST", "/v3/memories/add/");
    assertThat(add.header("Authorization")).isEqualTo("Token " + KEY);
    assertThat(add.header("X-API-Key")).isNull();
    JsonNode body = add.body();
    assertThat(body.get("user_id").asString()).isEqualTo("user:1");
    assertThat(body.has("agent_id"))
        .as("an agent_id would file an agent-scoped copy that forget(owner) cannot reach")
        .isFalse();
    assertThat(body.get("metadata").get("memstack_agent").asString()).isEqualTo("helper");
    assertThat(body.get("metadata").get("conversation_id").asString()).isEqualTo("conv-7");
    assertThat(body.get("metadata").get("turn_id").asString()).isEqualTo("turn-p1");
    assertThat(body.get("messages")).hasSize(2);
    assertThat(body.get("infer").asBoolean()).isTrue();
  }

  @Test
  @DisplayName("a PENDING answer counts as accepted: the turn is not sent again")
  void aPendingAnswerCountsAsAccepted() {
    var turn = turn("turn-p2", USER_1, "My sister is called Ana", "Nice.");
    provider.syncTurn(turn);
    provider.syncTurn(turn);

    assertThat(server.requests("POST", "/v3/memories/add/")).hasSize(1);
    assertThat(provider.prefetch(request(USER_1, "sister Ana", 5)).items())
        .as("not searchable before the Platform processed the event")
        .isEmpty();

    server.processPending();

    assertThat(provider.prefetch(request(USER_1, "sister Ana", 5)).items())
        .extracting(RecallItem::text)
        .contains("[Mem0 Recall] My sister is called Ana");
  }

  @Test
  @DisplayName("search goes to /v3/memories/search/ with the owner only inside filters")
  void searchSendsTheOwnerOnlyInsideFilters() {
    provider.prefetch(request(USER_1, "sister", 2));

    FakeMem0Server.Request search = server.last("POST", "/v3/memories/search/");
    assertThat(search.header("Authorization")).isEqualTo("Token " + KEY);
    JsonNode body = search.body();
    assertThat(body.has("user_id")).as("top-level ids are a 400 on v3").isFalse();
    assertThat(body.has("agent_id")).isFalse();
    assertThat(body.get("filters").get("user_id").asString()).isEqualTo("user:1");
    assertThat(body.get("filters").size()).isEqualTo(1);
    assertThat(body.get("top_k").asInt())
        .as("three times the limit, agent filtered here")
        .isEqualTo(6);
    assertThat(body.get("query").asString()).isEqualTo("sister");
  }

  @Test
  @DisplayName("memories tagged for another agent are not recalled, untagged ones are")
  void memoriesOfAnotherAgentAreNotRecalled() {
    server.seed("user:1", null, "Likes jazz (helper)", Map.of("memstack_agent", "helper"));
    server.seed("user:1", null, "Likes jazz (planner)", Map.of("memstack_agent", "planner"));
    server.seed("user:1", null, "Likes jazz (written elsewhere)", Map.of());
    server.seed("user:2", null, "Likes jazz (someone else)", Map.of("memstack_agent", "helper"));

    var items = provider.prefetch(request(USER_1, "jazz", 5)).items();

    assertThat(items)
        .extracting(RecallItem::text)
        .containsExactlyInAnyOrder(
            "[Mem0 Recall] Likes jazz (helper)", "[Mem0 Recall] Likes jazz (written elsewhere)");
    assertThat(
            provider
                .prefetch(request(OTHER_AGENT, USER_1, "jazz", 5, Duration.ofSeconds(5)))
                .items())
        .extracting(RecallItem::text)
        .doesNotContain("[Mem0 Recall] Likes jazz (helper)");
  }

  @Test
  @DisplayName("with infer=false the add is synchronous and found at once")
  void verbatimAddsAreFoundAtOnce(@TempDir Path otherDir) {
    try (Mem0MemoryProvider verbatim =
        provider(config(server, "api-key", KEY, "infer", "false"), otherDir)) {
      verbatim.syncTurn(turn("turn-p3", USER_2, "My bike is a green Brompton", "Lovely."));
      assertThat(server.last("POST", "/v3/memories/add/").body().get("infer").asBoolean())
          .isFalse();
      assertThat(verbatim.prefetch(request(USER_2, "green Brompton", 3)).items())
          .extracting(RecallItem::text)
          .contains("[Mem0 Recall] My bike is a green Brompton");
    }
  }

  @Test
  @DisplayName("forget counts the owner's memories, then deletes them through /v1/memories/")
  void forgetCountsThenDeletes() {
    server.seed("user:1", null, "one", Map.of());
    server.seed("user:1", null, "two", Map.of());
    server.seed("user:2", null, "three", Map.of());

    assertThat(provider.forget(USER_1)).isEqualTo(2);

    FakeMem0Server.Request count = server.last("POST", "/v3/memories/");
    assertThat(count.query()).containsEntry("page_size", "1");
    assertThat(count.body().get("filters").get("user_id").asString()).isEqualTo("user:1");
    FakeMem0Server.Request delete = server.last("DELETE", "/v1/memories/");
    assertThat(delete.query()).containsEntry("user_id", "user:1");
    assertThat(delete.header("Authorization")).isEqualTo("Token " + KEY);
    assertThat(server.memoriesOf("user:1")).isEmpty();
    assertThat(server.memoriesOf("user:2")).hasSize(1);
  }

  @Test
  @DisplayName("health pings /v1/ping/")
  void healthPings() {
    assertThat(provider.health().status()).isEqualTo(ProviderHealth.Status.UP);
    assertThat(server.last("GET", "/v1/ping/").header("Authorization")).isEqualTo("Token " + KEY);
  }

  @Test
  @DisplayName("a wrong key is a 401 that names the key setting but never its value")
  void aWrongKeyIsReportedWithoutItsValue(@TempDir Path otherDir) {
    String wrong = "m0-this-key-is-wrong-and-secret";
    try (Mem0MemoryProvider wrongKey = provider(config(server, "api-key", wrong), otherDir)) {
      assertThatThrownBy(() -> wrongKey.prefetch(request(USER_1, "anything", 3)))
          .isInstanceOf(Mem0Exception.class)
          .hasMessageContaining("HTTP 401")
          .hasMessageContaining("memstack.providers.mem0.config.api-key")
          .hasMessageNotContaining(wrong);
      ProviderHealth health = wrongKey.health();
      assertThat(health.status()).isEqualTo(ProviderHealth.Status.DOWN);
      assertThat(health.detail()).contains("401").doesNotContain(wrong);
    }
  }

  @Test
  @DisplayName("the agent id of the request, not of the turn's owner, scopes recall")
  void theRequestAgentScopesRecall() {
    provider.syncTurn(turn("turn-p4", OTHER_AGENT, USER_1, "I speak Basque", "Kaixo!"));
    server.processPending();

    assertThat(provider.prefetch(request(USER_1, "Basque", 5)).items()).isEmpty();
    assertThat(
            provider
                .prefetch(request(OTHER_AGENT, USER_1, "Basque", 5, Duration.ofSeconds(5)))
                .items())
        .isNotEmpty();
  }
}
