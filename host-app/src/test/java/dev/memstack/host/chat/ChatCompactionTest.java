package dev.memstack.host.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.FakeOllamaServer;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.TestHost;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/**
 * A long conversation through {@code /chat} with {@code default-max-input-tokens} 4,000 and a model
 * that answers about 200 tokens each time: 300 messages are compacted at least 10 times, every
 * model request stays within 4,000 tokens by the host's count and by the size the model reports,
 * the summary arrives as a user message with its prefix, and the last exchange is always verbatim.
 */
class ChatCompactionTest {

  static final String AGENT = "long-agent";
  static final String CONDENSE = "You condense the earlier part of a conversation";
  static final String EXTRACTION = "You maintain the long-term memory";
  static final String FACTS = "You extract durable memory";
  static final String REPLY = "This is a long and careful answer. ".repeat(23); // ~800 chars

  @AutoClose private static final FakeOllamaServer OLLAMA = ollama();

  @RegisterExtension
  static final TestHost HOST =
      TestHost.withTestEmbedder("chat-long")
          .with("memstack.models.chat", "ollama")
          .with("memstack.models.ollama.base-url", OLLAMA.baseUrl())
          .with("memstack.window.default-max-input-tokens", "4000");

  private static final HostClient api = HOST.client();

  private static FakeOllamaServer ollama() {
    try {
      FakeOllamaServer server = new FakeOllamaServer(8);
      server.answerChats(
          system ->
              system.startsWith(CONDENSE)
                  ? "The user asked a long series of numbered questions; the assistant answered"
                      + " each one carefully."
                  : system.startsWith(EXTRACTION)
                      ? "[]"
                      : system.startsWith(FACTS) ? "{\"facts\": []}" : REPLY);
      return server;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String system(FakeOllamaServer.Request request) {
    return request.body().path("messages").path(0).path("content").asString();
  }

  /** A chat call ends with the current message; the memory jobs' calls quote a whole exchange. */
  private static boolean isChatCall(FakeOllamaServer.Request request) {
    JsonNode messages = request.body().path("messages");
    JsonNode last = messages.path(messages.size() - 1);
    return !system(request).startsWith(CONDENSE)
        && last.path("role").asString().equals("user")
        && last.path("content").asString().startsWith("Question number");
  }

  @Test
  void threeHundredMessagesStayWithinTheBudgetAndAreCompactedAtLeastTenTimes() {
    List<Integer> hostCounts = new ArrayList<>();
    String previous = null;
    for (int i = 1; i <= 300; i++) {
      String message =
          "Question number " + i + ": tell me more about the topic we discussed, in detail please.";
      Answer answer =
          api.post(
              "/api/v1/agents/" + AGENT + "/chat",
              "{\"ownerKey\":\"user:long\",\"conversationId\":\"long\",\"message\":\""
                  + message
                  + "\"}");
      assertThat(answer.status()).as("message %d: %s", i, answer.body()).isEqualTo(200);
      hostCounts.add(answer.json().at("/window/tokens").asInt());
      if (previous != null) {
        List<FakeOllamaServer.Request> calls =
            OLLAMA.requests("/api/chat").stream().filter(ChatCompactionTest::isChatCall).toList();
        String lastCall = calls.get(calls.size() - 1).body().path("messages").toString();
        assertThat(lastCall).as("the last exchange is verbatim").contains(previous);
      }
      previous = message;
    }

    assertThat(hostCounts).allSatisfy(tokens -> assertThat(tokens).isBetween(1, 4000));
    List<FakeOllamaServer.Request> chats =
        OLLAMA.requests("/api/chat").stream().filter(ChatCompactionTest::isChatCall).toList();
    assertThat(chats).hasSize(300);
    assertThat(chats)
        .allSatisfy(
            call ->
                assertThat(FakeOllamaServer.promptTokens(call.body()))
                    .as("the prompt size the model reports")
                    .isLessThanOrEqualTo(4000));
    long compactions =
        OLLAMA.requests("/api/chat").stream().filter(r -> system(r).startsWith(CONDENSE)).count();
    assertThat(compactions).as("summaries asked of the model").isGreaterThanOrEqualTo(10);
    JsonNode last = chats.get(chats.size() - 1).body().path("messages");
    boolean summaryAsUser = false;
    for (JsonNode message : last) {
      if (message.path("content").asString().startsWith("[Summary of the earlier conversation")) {
        assertThat(message.path("role").asString()).isEqualTo("user");
        summaryAsUser = true;
      }
    }
    assertThat(summaryAsUser).as("the summary arrives as a user message with its prefix").isTrue();
  }
}
