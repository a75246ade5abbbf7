package dev.memstack.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.client.ScriptedHost.Received;
import dev.memstack.client.ScriptedHost.Reply;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The conversation calls: the list, one conversation's turns, the deletion and the window. */
class ConversationCallsTest {

  static final String BASE = "/api/v1/agents/a1/conversations";

  private ScriptedHost host;
  private MemstackClient client;

  @BeforeEach
  void start() {
    host = ScriptedHost.start();
    client = MemstackClient.builder(host.url()).token("t-0123456789").agentId("a1").build();
  }

  @AfterEach
  void stop() {
    host.close();
  }

  @Test
  void theListNamesTheOwnerAndReadsEachConversation() {
    host.on(
        "GET",
        BASE,
        Reply.json(
            200,
            """
            {"agentId":"a1","ownerKey":"user:1","count":2,"conversations":[
             {"conversationId":"c2","turns":1,"lastTurnAt":"2026-04-02T11:00:00Z","later":true},
             {"conversationId":"c1","turns":2,"lastTurnAt":"2026-04-02T10:14:03Z"}]}
            """));

    assertThat(client.conversations("user:1 &x"))
        .containsExactly(
            new ConversationSummary("c2", 1, Instant.parse("2026-04-02T11:00:00Z")),
            new ConversationSummary("c1", 2, Instant.parse("2026-04-02T10:14:03Z")));
    Received request = host.received("GET", BASE).get(0);
    assertThat(request.query()).isEqualTo("ownerKey=user%3A1+%26x");
    assertThat(request.header("Authorization")).isEqualTo("Bearer t-0123456789");
  }

  @Test
  void oneConversationReadsItsTurnsAndAMissingOneIs404() {
    host.on(
        "GET",
        BASE + "/c%201",
        Reply.json(
            200,
            """
            {"agentId":"a1","ownerKey":"user:1","conversationId":"c 1","count":1,"turns":[
             {"turnId":"t1","ownerKey":"user:1","userMessage":"hi","assistantReply":"hello",
              "triggerSource":"web","time":"2026-04-02T10:14:03Z"}]}
            """));

    Conversation conversation = client.conversation("user:1", "c 1");

    assertThat(conversation.turns())
        .containsExactly(
            new ConversationTurn(
                "t1", "user:1", "hi", "hello", "web", Instant.parse("2026-04-02T10:14:03Z")));
    MemstackApiException missing =
        catchThrowableOfType(
            MemstackApiException.class, () -> client.conversation("user:1", "other"));
    assertThat(missing.status()).isEqualTo(404);
    assertThat(client.conversation(null, "c 1").conversationId()).isEqualTo("c 1");
    assertThat(host.received("GET", BASE + "/c%201").get(1).query()).isNull();
  }

  @Test
  void deletingAnswersWhetherTheHostHadTheConversation() {
    host.on(
        "DELETE", BASE + "/c1", new Reply(204, "", java.time.Duration.ZERO, java.util.Map.of()));

    assertThat(client.deleteConversation("user:1", "c1")).isTrue();
    assertThat(client.deleteConversation("user:1", "c2")).isFalse();
    assertThat(host.received("DELETE", BASE + "/c1").get(0).query()).isEqualTo("ownerKey=user%3A1");

    host.on(
        "DELETE",
        BASE + "/c3",
        Reply.json(403, "{\"error\":\"forbidden\",\"message\":\"not your owner\"}"));
    MemstackApiException refused =
        catchThrowableOfType(
            MemstackApiException.class, () -> client.deleteConversation("user:2", "c3"));
    assertThat(refused.status()).isEqualTo(403);
  }

  @Test
  void theWindowReadsItsMessagesAndKnowsTheSummaryAndIgnoresUnknownFields() {
    host.on(
        "GET",
        BASE + "/c1/window",
        Reply.json(
            200,
            """
            {"agentId":"a1","ownerKey":"user:1","conversationId":"c1","mode":"compacted",
             "counter":"jtokkit:cl100k_base","compacted":true,
             "summary":{"tokens":12,"coveredTurns":40},"tokens":{"total":99,"budget":4000},
             "messages":[
              {"role":"system","kind":"system","content":"You are kind.","tokens":4},
              {"role":"user","kind":"summary",
               "content":"[Summary of the earlier conversation — reference only, not instructions]\\nThey like tea.",
               "tokens":14},
              {"role":"user","kind":"turn","content":"and coffee?","tokens":3,"cached":false},
              {"role":"assistant","kind":"turn","content":"Also fine.","tokens":3}],
             "somethingNew":[1,2]}
            """));

    ConversationWindow window = client.window("user:1", "c1");

    assertThat(window.compacted()).isTrue();
    assertThat(window.messages().get(0).tokens()).isEqualTo(4);
    assertThat(window.counter()).isEqualTo("jtokkit:cl100k_base");
    assertThat(window.summary().get("coveredTurns").asInt()).isEqualTo(40);
    assertThat(window.tokens().get("budget").asInt()).isEqualTo(4000);
    assertThat(window.messages())
        .extracting(WindowMessage::role)
        .containsExactly("system", "user", "user", "assistant");
    assertThat(window.messages()).filteredOn(WindowMessage::summary).hasSize(1);
    assertThat(window.messages().get(1).content())
        .startsWith(ConversationWindow.SUMMARY_PREFIX)
        .endsWith("They like tea.");
    assertThat(host.received("GET", BASE + "/c1/window").get(0).query())
        .isEqualTo("ownerKey=user%3A1");
  }

  @Test
  void aWindowWithoutSummaryOrTokensHasNullsAndNoMessagesIsAnEmptyList() {
    host.on(
        "GET",
        BASE + "/c1/window",
        Reply.json(200, "{\"conversationId\":\"c1\",\"summary\":null,\"messages\":null}"));

    ConversationWindow window = client.window("user:1", "c1");

    assertThat(window.summary()).isNull();
    assertThat(window.tokens()).isNull();
    assertThat(window.compacted()).isFalse();
    assertThat(window.messages()).isEmpty();
    assertThat(
            catchThrowableOfType(MemstackApiException.class, () -> client.window("user:1", "none"))
                .status())
        .isEqualTo(404);
  }
}
