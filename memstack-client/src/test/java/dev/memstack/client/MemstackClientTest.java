package dev.memstack.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.client.ScriptedHost.Received;
import dev.memstack.client.ScriptedHost.Reply;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class MemstackClientTest {

  static final String TOKEN = "client-test-token-0123456789";
  static final String CONTEXT = "/api/v1/agents/a1/memory/context";
  static final String TURNS = "/api/v1/agents/a1/memory/turns";

  private final JsonMapper json = JsonMapper.builder().build();
  private ScriptedHost host;
  private MemstackClient client;

  @BeforeEach
  void start() {
    host = ScriptedHost.start();
    client = MemstackClient.builder(host.url()).token(TOKEN).agentId("a1").build();
  }

  @AfterEach
  void stop() {
    host.close();
  }

  @Nested
  @DisplayName("successful calls")
  class Calls {

    @Test
    void aContextCallMayNameTheProvidersToRecallFrom() {
      host.on(
          "POST",
          CONTEXT,
          Reply.json(
              200,
              "{\"systemPrompt\":\"\",\"ownerPrompt\":\"\",\"recall\":[],\"context\":\"\","
                  + "\"providers\":[{\"id\":\"vector\",\"status\":\"ok\",\"tookMs\":3},"
                  + "{\"id\":\"builtin\",\"status\":\"skipped\",\"tookMs\":0}]}"));

      ContextAnswer answer =
          client.context(ContextRequest.of("user:1", null, "what tea?").withProviders("vector"));

      assertThat(json.readTree(host.received("POST", CONTEXT).get(0).body()).get("providers"))
          .isEqualTo(json.readTree("[\"vector\"]"));
      assertThat(answer.providers().get(1).status()).isEqualTo("skipped");
      assertThatThrownBy(() -> ContextRequest.of("user:1", null, "q").withProviders())
          .hasMessageContaining("at least one");
    }

    @Test
    void aContextCallSendsTheTokenAndTheRequestAndReadsEveryPartOfTheAnswer() {
      host.on(
          "POST",
          CONTEXT,
          Reply.json(
              200,
              """
              {"systemPrompt":"--- AGENTS.md ---","ownerPrompt":"--- PROFILE.md ---\\n- Name: Ada",
               "recall":[{"provider":"vector","text":"user: I like green tea","score":0.93,
                 "scope":"personal","createdAt":"2026-03-02T10:15:30Z","metadata":{"id":"t-1#u0"}}],
               "context":"<memory-context>\\n- tea\\n</memory-context>",
               "providers":[{"id":"vector","status":"ok","tookMs":14},
                 {"id":"mem0","status":"timeout","tookMs":800,"detail":"late"}],
               "aFieldOfALaterHost":{"x":1}}
              """));

      ContextAnswer answer =
          client.context(ContextRequest.of("user:1", "c1", "what tea?").withLimit(5));

      Received request = host.received("POST", CONTEXT).get(0);
      assertThat(request.header("Authorization")).isEqualTo("Bearer " + TOKEN);
      assertThat(request.header("Content-Type")).startsWith("application/json");
      assertThat(json.readTree(request.body()))
          .isEqualTo(
              json.readTree(
                  "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"query\":\"what tea?\","
                      + "\"limit\":5,\"explain\":false}"));
      assertThat(answer.systemPrompt()).isEqualTo("--- AGENTS.md ---");
      assertThat(answer.ownerPrompt()).contains("Name: Ada");
      assertThat(answer.systemText())
          .isEqualTo("--- AGENTS.md ---\n\n--- PROFILE.md ---\n- Name: Ada");
      assertThat(answer.context()).startsWith("<memory-context>");
      assertThat(answer.recall())
          .containsExactly(
              new RecallItem(
                  "vector",
                  "user: I like green tea",
                  0.93,
                  "personal",
                  Instant.parse("2026-03-02T10:15:30Z"),
                  Map.of("id", "t-1#u0")));
      assertThat(answer.providers())
          .containsExactly(
              new ProviderReport("vector", "ok", 14, null),
              new ProviderReport("mem0", "timeout", 800, "late"));
      assertThat(answer.providers().get(1).ok()).isFalse();
    }

    @Test
    void aContextRequestWithoutConversationLeavesTheFieldOut() {
      host.on("POST", CONTEXT, Reply.json(200, "{}"));

      ContextAnswer answer = client.context(ContextRequest.of("user:1", null, ""));

      assertThat(json.readTree(host.received("POST", CONTEXT).get(0).body()).has("conversationId"))
          .isFalse();
      assertThat(answer.systemText()).isEmpty();
      assertThat(answer.recall()).isEmpty();
      assertThat(answer.context()).isEmpty();
    }

    @Test
    void aTurnIsPostedWithItsWireNamesAndTheAcceptedIdIsReturned() {
      host.on("POST", TURNS, Reply.json(202, "{\"turnId\":\"t-9\"}"));

      TurnAccepted accepted =
          client.postTurn(
              TurnRequest.of("api:7", "c1", "my cat is Miso", "Nice!", TriggerSource.API)
                  .withTurnId("t-9"));

      assertThat(accepted.turnId()).isEqualTo("t-9");
      assertThat(json.readTree(host.received("POST", TURNS).get(0).body()))
          .isEqualTo(
              json.readTree(
                  "{\"ownerKey\":\"api:7\",\"conversationId\":\"c1\",\"userMessage\":"
                      + "\"my cat is Miso\",\"assistantReply\":\"Nice!\",\"triggerSource\":\"api\","
                      + "\"turnId\":\"t-9\"}"));
    }

    @Test
    void toolsAreListedAndOneIsCalledForAnOwnerWithItsArguments() {
      host.on(
          "GET",
          "/api/v1/agents/a1/tools",
          Reply.json(
              200,
              "{\"tools\":[{\"provider\":\"builtin\",\"name\":\"read_workspace_memory_file\","
                  + "\"description\":\"Read one file.\",\"inputSchema\":{\"type\":\"object\"}}]}"));
      String call = "/api/v1/agents/a1/tools/builtin/read_workspace_memory_file";
      host.on("POST", call, Reply.json(200, "{\"filename\":\"MEMORY.md\",\"content\":\"x\"}"));

      List<Tool> tools = client.tools();
      JsonNode answer =
          client.callTool(
              "builtin", "read_workspace_memory_file", "user:1 b", Map.of("filename", "MEMORY.md"));

      assertThat(tools).hasSize(1);
      assertThat(tools.get(0).provider()).isEqualTo("builtin");
      assertThat(tools.get(0).inputSchema().get("type").stringValue()).isEqualTo("object");
      Received request = host.received("POST", call).get(0);
      assertThat(request.query()).isEqualTo("ownerKey=user%3A1+b");
      assertThat(json.readTree(request.body()))
          .isEqualTo(json.readTree("{\"filename\":\"MEMORY.md\"}"));
      assertThat(answer.get("content").stringValue()).isEqualTo("x");
    }

    @Test
    void aToolCallWithoutArgumentsSendsAnEmptyObject() {
      String call = "/api/v1/agents/a1/tools/vector/list_memories";
      host.on("POST", call, Reply.json(200, "[]"));

      JsonNode answer = client.callTool("vector", "list_memories", null, null);

      Received request = host.received("POST", call).get(0);
      assertThat(request.query()).isNull();
      assertThat(request.body()).isEqualTo("{}");
      assertThat(answer.isArray()).isTrue();
    }

    @Test
    void feedbackSendsUsedAndWrongItemsAndReadsWhatWasApplied() {
      String feedback = "/api/v1/agents/a1/memory/feedback";
      host.on(
          "POST",
          feedback,
          Reply.json(200, "{\"applied\":{},\"wrongApplied\":{\"vector\":1,\"builtin\":-1}}"));
      RecallItem recalled =
          new RecallItem("vector", "text", 0.5, "personal", null, Map.of("id", "t-1#u0"));

      FeedbackApplied applied =
          client.wrong(
              "user:1", List.of(FeedbackItem.of(recalled), new FeedbackItem("builtin", "x")));

      Received request = host.received("POST", feedback).get(0);
      assertThat(json.readTree(request.body()))
          .isEqualTo(
              json.readTree(
                  "{\"ownerKey\":\"user:1\",\"wrong\":[{\"provider\":\"vector\",\"id\":\"t-1#u0\"},"
                      + "{\"provider\":\"builtin\",\"id\":\"x\"}]}"));
      assertThat(applied.applied()).isEmpty();
      assertThat(applied.wrongApplied()).containsEntry("vector", 1).containsEntry("builtin", -1);
      assertThatThrownBy(() -> client.feedback("user:1", List.of(), null))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(
              () -> FeedbackItem.of(new RecallItem("builtin", "text", 0.5, "team", null, Map.of())))
          .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anOwnerIsErasedByItsKeyInThePath() {
      host.on(
          "DELETE",
          "/api/v1/owners/api:7/memory",
          Reply.json(
              200,
              "{\"ownerKey\":\"api:7\",\"providers\":[{\"id\":\"vector\",\"outcome\":\"erased\","
                  + "\"removed\":3,\"droppedPending\":1}],\"conversationTurnsRemoved\":2}"));

      Erasure erasure = client.eraseOwner("api:7");

      assertThat(erasure.ownerKey()).isEqualTo("api:7");
      assertThat(erasure.providers())
          .containsExactly(new Erasure.ProviderErasure("vector", "erased", 3, 1, null));
      assertThat(erasure.conversationTurnsRemoved()).isEqualTo(2);
    }

    @Test
    void aBaseUrlWithAPathPrefixKeepsIt() {
      host.on("POST", "/memstack" + CONTEXT, Reply.json(200, "{}"));
      MemstackClient prefixed =
          MemstackClient.builder(URI.create(host.url() + "/memstack/")).agentId("a1").build();

      prefixed.context(ContextRequest.of("user:1", null, "q"));

      Received request = host.received().get(0);
      assertThat(request.path()).isEqualTo("/memstack" + CONTEXT);
      assertThat(request.header("Authorization")).as("no token configured").isNull();
    }

    @Test
    void forAgentSharesTheHostAndTokenForAnotherAgent() {
      host.on("POST", "/api/v1/agents/a2/memory/context", Reply.json(200, "{}"));

      client.forAgent("a2").context(ContextRequest.of("user:1", null, "q"));

      assertThat(host.received().get(0).header("Authorization")).isEqualTo("Bearer " + TOKEN);
      assertThat(client.agentId()).isEqualTo("a1");
    }
  }

  @Nested
  @DisplayName("errors")
  class Errors {

    @Test
    void aHostErrorCarriesStatusCodeFieldAndMessage() {
      host.on(
          "POST",
          CONTEXT,
          Reply.json(
              400,
              "{\"error\":\"bad_request\",\"field\":\"ownerKey\",\"message\":\"ownerKey must be"
                  + " 'system' or '<prefix>:<id>'\"}"));

      MemstackApiException e =
          catchThrowableOfType(
              MemstackApiException.class,
              () -> client.context(ContextRequest.of("no key", null, "q")));

      assertThat(e.status()).isEqualTo(400);
      assertThat(e.error()).isEqualTo("bad_request");
      assertThat(e.field()).isEqualTo("ownerKey");
      assertThat(e.hostMessage()).startsWith("ownerKey must be");
      assertThat(e.clientError()).isTrue();
      assertThat(e.retryAfter()).isEmpty();
      assertThat(e.getMessage())
          .isEqualTo(
              "POST "
                  + CONTEXT
                  + " answered 400 bad_request (field ownerKey): ownerKey must be 'system' or"
                  + " '<prefix>:<id>'");
    }

    @Test
    void aRefusedTokenNeverAppearsInTheException() {
      host.on(
          "POST",
          TURNS,
          Reply.json(401, "{\"error\":\"unauthorized\",\"message\":\"unknown token\"}"));

      MemstackApiException e =
          catchThrowableOfType(
              MemstackApiException.class,
              () -> client.postTurn(TurnRequest.of("api:1", "c", "u", "a", TriggerSource.WEB)));

      assertThat(e.status()).isEqualTo(401);
      assertThat(e.error()).isEqualTo("unauthorized");
      assertThat(e.field()).isNull();
      assertThat(e.getMessage()).doesNotContain(TOKEN);
    }

    @Test
    void aFullTurnQueueTellsWhenToRetry() {
      host.on(
          "POST",
          TURNS,
          Reply.json(503, "{\"error\":\"unavailable\",\"message\":\"queue full\"}")
              .header("Retry-After", "30"));

      MemstackApiException e =
          catchThrowableOfType(
              MemstackApiException.class,
              () -> client.postTurn(TurnRequest.of("api:1", "c", "u", "a", TriggerSource.WEB)));

      assertThat(e.status()).isEqualTo(503);
      assertThat(e.clientError()).isFalse();
      assertThat(e.retryAfter()).contains(Duration.ofSeconds(30));
    }

    @Test
    void anErrorBodyThatIsNotTheHostsIsQuotedByItsStart() {
      host.on(
          "GET",
          "/api/v1/agents/a1/tools",
          new Reply(502, "<html>" + "x".repeat(500) + "</html>", Duration.ZERO, Map.of()));

      MemstackApiException e = catchThrowableOfType(MemstackApiException.class, client::tools);

      assertThat(e.status()).isEqualTo(502);
      assertThat(e.error()).isNull();
      assertThat(e.field()).isNull();
      assertThat(e.hostMessage()).startsWith("<html>xxx").endsWith("...").hasSize(203);
    }

    @Test
    void aSuccessAnswerThatIsNotJsonIsNoUsableAnswer() {
      host.on("POST", CONTEXT, new Reply(200, "<html>proxy</html>", Duration.ZERO, Map.of()));

      assertThatThrownBy(() -> client.context(ContextRequest.of("user:1", null, "q")))
          .isInstanceOf(MemstackConnectionException.class)
          .hasMessageContaining("not the expected JSON");
    }

    @Test
    void aHostThatDoesNotAnswerInTimeIsATimeout() {
      host.on("POST", CONTEXT, Reply.json(200, "{}").after(Duration.ofSeconds(3)));
      MemstackClient impatient =
          MemstackClient.builder(host.url()).agentId("a1").timeout(Duration.ofMillis(200)).build();

      long start = System.nanoTime();
      MemstackConnectionException e =
          catchThrowableOfType(
              MemstackConnectionException.class,
              () -> impatient.context(ContextRequest.of("user:1", null, "q")));

      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
      assertThat(e.timedOut()).isTrue();
      assertThat(e.getMessage()).contains("no answer within 200 ms");
    }

    @Test
    void aHostThatIsNotThereIsAConnectionFailureNotATimeout() throws Exception {
      int port;
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = socket.getLocalPort();
      }
      MemstackClient nowhere =
          MemstackClient.builder(URI.create("http://127.0.0.1:" + port)).agentId("a1").build();

      MemstackConnectionException e =
          catchThrowableOfType(
              MemstackConnectionException.class,
              () -> nowhere.context(ContextRequest.of("user:1", null, "q")));

      assertThat(e.timedOut()).isFalse();
      assertThat(e.getMessage()).contains("cannot connect");
    }
  }

  @Nested
  @DisplayName("settings")
  class Settings {

    @Test
    void anAgentIdTheHostWouldRefuseIsRefusedAtOnce() {
      assertThatThrownBy(() -> MemstackClient.builder(host.url()).agentId("a b"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("agentId must be 1-64 characters");
    }

    @Test
    void aClientWithoutAgentIdCannotBeBuilt() {
      assertThatThrownBy(() -> MemstackClient.builder(host.url()).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("agentId is required");
    }

    @Test
    void aBaseUrlMustBeHttp() {
      assertThatThrownBy(() -> MemstackClient.builder(URI.create("ftp://host")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("http or https");
    }

    @Test
    void timeoutsMustBePositive() {
      assertThatThrownBy(() -> MemstackClient.builder(host.url()).timeout(Duration.ZERO))
          .hasMessageContaining("timeout must be positive");
      assertThatThrownBy(
              () -> MemstackClient.builder(host.url()).connectTimeout(Duration.ofSeconds(-1)))
          .hasMessageContaining("connectTimeout must be positive");
    }

    @Test
    void aContextLimitOutsideTheHostsRangeIsRefused() {
      assertThatThrownBy(() -> ContextRequest.of("user:1", null, "q").withLimit(201))
          .hasMessageContaining("limit must be 0");
    }
  }
}
