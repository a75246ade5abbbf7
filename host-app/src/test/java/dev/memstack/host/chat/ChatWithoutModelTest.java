package dev.memstack.host.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.TestHost;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Without a chat model, both chat routes answer 409 naming {@code memstack.models.chat}, and the
 * window route answers the sliding window of the newest 20 messages.
 */
class ChatWithoutModelTest {

  @RegisterExtension static final TestHost HOST = TestHost.withTestEmbedder("chat-none");

  private static final HostClient api = HOST.client();

  private static final String BODY =
      "{\"ownerKey\":\"user:1\",\"conversationId\":\"c\",\"message\":\"hello\"}";

  @Test
  void chatAnswers409NamingTheSetting() {
    Answer answer = api.post("/api/v1/agents/a1/chat", BODY);
    assertThat(answer.status()).isEqualTo(409);
    assertThat(answer.json().get("error").asString()).isEqualTo("conflict");
    assertThat(answer.json().get("message").asString()).contains("memstack.models.chat");
  }

  @Test
  void theStreamAnswers409AsJsonBeforeAnyEvent() {
    Answer answer =
        api.send(
            api.request("/api/v1/agents/a1/chat/stream")
                .header("Content-Type", "application/json")
                .header("Accept", "text/event-stream, application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY)));
    assertThat(answer.status()).isEqualTo(409);
    assertThat(answer.json()).as(answer.body()).isNotNull();
    assertThat(answer.json().get("message").asString()).contains("memstack.models.chat");
  }

  @Test
  void theWindowRouteAnswersTheSlidingWindow() {
    for (int i = 1; i <= 25; i++) {
      api.turn("a1", "user:1", "slide-" + i, "message " + i, "reply " + i).expect(202);
    }
    Answer window = api.get("/api/v1/agents/a1/conversations/conv-user_1/window?ownerKey=user:1");
    assertThat(window.status()).as(window.body()).isEqualTo(200);
    assertThat(window.json().get("mode").asString()).isEqualTo("sliding");
    assertThat(window.json().get("compacted").asBoolean()).isFalse();
    assertThat(window.json().get("messages").size()).isEqualTo(20);
    assertThat(window.json().at("/messages/19/content").asString()).isEqualTo("reply 25");
  }
}
