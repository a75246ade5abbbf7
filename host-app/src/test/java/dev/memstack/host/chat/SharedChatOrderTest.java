package dev.memstack.host.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.testing.FakeOllamaServer;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.SharedTestDatabase;
import dev.memstack.host.testing.TestHost;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two hosts in shared mode on one database, one chat model: two messages of one conversation posted
 * at the same moment, one to each host, are answered one after the other — the later model call
 * sees the first exchange — and the conversation log holds both turns.
 */
class SharedChatOrderTest {

  private static SharedTestDatabase database;
  private static FakeOllamaServer ollama;
  private static TestHost hostA;
  private static TestHost hostB;

  @BeforeAll
  static void startTwoHosts() throws IOException {
    database = SharedTestDatabase.create();
    ollama = new FakeOllamaServer(8);
    ollama.answerChats(system -> "answered");
    hostA = shared("chat-a").start();
    hostB = shared("chat-b").start();
  }

  private static TestHost shared(String name) {
    SharedProperties properties = database.properties();
    TestHost host =
        TestHost.withTestEmbedder(name)
            .with("memstack.shared.jdbc-url", properties.jdbcUrl())
            .with("memstack.providers.vector.config.schema", database.schema())
            .with("memstack.models.chat", "ollama")
            .with("memstack.models.ollama.base-url", ollama.baseUrl());
    if (properties.username() != null) {
      host.with("memstack.shared.username", properties.username());
    }
    if (properties.password() != null) {
      host.with("memstack.shared.password", properties.password());
    }
    return host;
  }

  @AfterAll
  static void stop() {
    for (TestHost host : new TestHost[] {hostA, hostB}) {
      if (host != null) {
        host.close();
      }
    }
    if (ollama != null) {
      ollama.close();
    }
    if (database != null) {
      database.drop();
    }
  }

  private static Answer chat(HostClient host, String text) {
    return host.post(
        "/api/v1/agents/shared-chat/chat",
        "{\"ownerKey\":\"user:both\",\"conversationId\":\"one\",\"message\":\"" + text + "\"}");
  }

  @Test
  void twoMessagesOfOneConversationOnTwoHostsAreAnsweredOneAfterTheOther() {
    ollama.delayAnswers(Duration.ofMillis(800));
    CompletableFuture<Answer> onA =
        CompletableFuture.supplyAsync(() -> chat(hostA.client(), "first question"));
    CompletableFuture<Answer> onB =
        CompletableFuture.supplyAsync(() -> chat(hostB.client(), "second question"));
    assertThat(onA.join().status()).as(onA.join().body()).isEqualTo(200);
    assertThat(onB.join().status()).as(onB.join().body()).isEqualTo(200);

    List<FakeOllamaServer.Request> calls =
        ollama.requests("/api/chat").stream()
            .filter(
                r -> {
                  var messages = r.body().path("messages");
                  String last = messages.path(messages.size() - 1).path("content").asString();
                  return last.endsWith(" question");
                })
            .toList();
    assertThat(calls).hasSize(2);
    String earlier = calls.get(0).body().path("messages").toString();
    String firstAsked = earlier.contains("first question") ? "first question" : "second question";
    assertThat(calls.get(1).body().path("messages").toString())
        .as("the later call, on the other host, sees the first exchange")
        .contains(firstAsked)
        .contains("answered");
    Answer log =
        hostB.client().get("/api/v1/agents/shared-chat/conversations/one?ownerKey=user:both");
    assertThat(log.json().get("count").asInt()).isEqualTo(2);
  }
}
