package dev.memstack.host.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.testing.FakeOllamaServer;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.TestHost;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/**
 * Chat end to end through a real host: the real plugin zips, {@code memstack.models.chat=ollama} on
 * the fake Ollama server (the real wire format, streaming included). A message is answered with the
 * owner's memory in the system prompt and stored as a turn; an {@code endUserId} is owner {@code
 * api:<id>} digit for digit; an owner-bound token chats only as its owner; the stream sends deltas
 * then done; a client that leaves mid-stream still gets its turn stored; two messages posted at
 * once to one conversation are answered one after the other.
 */
class ChatApiTest {

  static final String AGENT = "chat-agent";

  @AutoClose private static final FakeOllamaServer OLLAMA = ollama();

  @RegisterExtension
  static final TestHost HOST =
      TestHost.withTestEmbedder("chat")
          .with("memstack.models.chat", "ollama")
          .with("memstack.models.ollama.base-url", OLLAMA.baseUrl())
          .withToken("member-of-seven-token", "member", "api:7");

  private static final HostClient api = HOST.client();

  private static FakeOllamaServer ollama() {
    try {
      return new FakeOllamaServer(8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterEach
  void resetTheModel() {
    OLLAMA.answerChats(null);
    OLLAMA.delayChunks(Duration.ZERO);
    OLLAMA.delayAnswers(Duration.ZERO);
  }

  private static String chatBody(
      String ownerField, String owner, String conversation, String text) {
    return "{\""
        + ownerField
        + "\":\""
        + owner
        + "\",\"conversationId\":\""
        + conversation
        + "\",\"message\":\""
        + text
        + "\"}";
  }

  private static Answer chat(String owner, String conversation, String text) {
    return api.post(
        "/api/v1/agents/" + AGENT + "/chat", chatBody("ownerKey", owner, conversation, text));
  }

  private static JsonNode conversation(String owner, String conversation) {
    Answer log =
        api.get(
            "/api/v1/agents/" + AGENT + "/conversations/" + conversation + "?ownerKey=" + owner);
    return log.status() == 200 ? log.json() : null;
  }

  @Test
  void aMessageIsAnsweredWithTheOwnersMemoryAndStoredAsATurn() {
    api.turn(AGENT, "user:1", "fact-1", "My favourite tea is oolong.", "Noted.").expect(202);
    await("the fact is recallable").atMost(Duration.ofSeconds(30)).until(() -> api.pending() == 0);
    OLLAMA.answerChats(
        system -> system.contains("oolong") ? "You like oolong tea." : "I do not know.");

    Answer answer = chat("user:1", "tea-talk", "What tea do I like?").expect(200);

    assertThat(answer.json().get("reply").asString()).isEqualTo("You like oolong tea.");
    assertThat(answer.json().get("ownerKey").asString()).isEqualTo("user:1");
    assertThat(answer.json().get("conversationId").asString()).isEqualTo("tea-talk");
    assertThat(answer.json().get("turnId").asString()).isNotBlank();
    assertThat(answer.json().at("/usage/promptTokens").asInt()).isPositive();
    assertThat(answer.json().get("providers").isArray()).isTrue();
    JsonNode log = conversation("user:1", "tea-talk");
    assertThat(log).isNotNull();
    assertThat(log.at("/turns/0/userMessage").asString()).isEqualTo("What tea do I like?");
    assertThat(log.at("/turns/0/assistantReply").asString()).isEqualTo("You like oolong tea.");
    assertThat(log.at("/turns/0/triggerSource").asString()).isEqualToIgnoringCase("web");
  }

  @Test
  void anEndUserIdIsOwnerApiIdKeptDigitForDigit() {
    Answer answer =
        api.post(
                "/api/v1/agents/" + AGENT + "/chat",
                "{\"endUserId\":90071992547409931123,\"conversationId\":\"big\",\"message\":\"hi\"}")
            .expect(200);
    assertThat(answer.json().get("ownerKey").asString()).isEqualTo("api:90071992547409931123");
    assertThat(conversation("api:90071992547409931123", "big")).isNotNull();
  }

  @Test
  void exactlyOneOfOwnerKeyAndEndUserIdIsGiven() {
    Answer both =
        api.post(
            "/api/v1/agents/" + AGENT + "/chat",
            "{\"ownerKey\":\"user:1\",\"endUserId\":\"1\",\"conversationId\":\"c\",\"message\":\"hi\"}");
    assertThat(both.status()).isEqualTo(400);
    assertThat(both.json().get("field").asString()).isEqualTo("endUserId");
    Answer neither =
        api.post(
            "/api/v1/agents/" + AGENT + "/chat", "{\"conversationId\":\"c\",\"message\":\"hi\"}");
    assertThat(neither.status()).isEqualTo(400);
    assertThat(neither.json().get("field").asString()).isEqualTo("ownerKey");
    Answer blank = chat("user:1", "c", " ");
    assertThat(blank.status()).isEqualTo(400);
    assertThat(blank.json().get("field").asString()).isEqualTo("message");
  }

  @Test
  void anOwnerBoundTokenChatsOnlyAsItsOwner() {
    HostClient member = api.as("member-of-seven-token");
    Answer other =
        member.post("/api/v1/agents/" + AGENT + "/chat", chatBody("ownerKey", "user:1", "c", "hi"));
    assertThat(other.status()).isEqualTo(403);
    Answer own =
        member.post("/api/v1/agents/" + AGENT + "/chat", chatBody("endUserId", "7", "mine", "hi"));
    assertThat(own.status()).as(own.body()).isEqualTo(200);
  }

  @Test
  void theStreamSendsDeltasThenDoneWithTheStoredTurn() throws Exception {
    OLLAMA.answerChats(system -> "one two three four");
    List<String[]> events = new ArrayList<>();
    try (BufferedReader stream = openStream("user:2", "streamed", "count for me")) {
      readEvents(stream, events, Integer.MAX_VALUE);
    }
    List<String> names = events.stream().map(e -> e[0]).toList();
    assertThat(names).contains("delta").last().isEqualTo("done");
    StringBuilder pieces = new StringBuilder();
    events.stream()
        .filter(e -> e[0].equals("delta"))
        .forEach(e -> pieces.append(HostClient.JSON.readTree(e[1]).get("text").asString()));
    assertThat(pieces.toString()).isEqualTo("one two three four");
    JsonNode done = HostClient.JSON.readTree(events.get(events.size() - 1)[1]);
    assertThat(done.get("reply").asString()).isEqualTo("one two three four");
    assertThat(done.get("turnId").asString()).isNotBlank();
    assertThat(conversation("user:2", "streamed").at("/turns/0/assistantReply").asString())
        .isEqualTo("one two three four");
  }

  @Test
  void aClientThatLeavesMidStreamStillGetsItsTurnStored() throws Exception {
    OLLAMA.answerChats(
        system -> "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu");
    OLLAMA.delayChunks(Duration.ofMillis(300));
    List<String[]> events = new ArrayList<>();
    try (BufferedReader stream = openStream("user:3", "left", "tell me the letters")) {
      readEvents(stream, events, 2);
    } // the client leaves after two deltas

    await("the turn of the left stream is stored")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              JsonNode log = conversation("user:3", "left");
              assertThat(log).isNotNull();
              String reply = log.at("/turns/0/assistantReply").asString();
              assertThat(reply).startsWith("alpha beta");
            });
    assertThat(conversation("user:3", "left").at("/turns/0/assistantReply").asString())
        .as("generation stopped when the client left")
        .isNotEqualTo("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu");
  }

  @Test
  void twoMessagesAtOnceOnOneConversationAreAnsweredOneAfterTheOther() {
    OLLAMA.answerChats(system -> "answered");
    OLLAMA.delayAnswers(Duration.ofMillis(700));
    int before = OLLAMA.requests("/api/chat").size();
    CompletableFuture<Answer> first =
        CompletableFuture.supplyAsync(() -> chat("user:4", "busy", "first question"));
    CompletableFuture<Answer> second =
        CompletableFuture.supplyAsync(() -> chat("user:4", "busy", "second question"));
    assertThat(first.join().status()).isEqualTo(200);
    assertThat(second.join().status()).isEqualTo(200);

    // the chat calls of this conversation end with its question; the memory jobs' calls after each
    // turn quote a whole exchange
    List<FakeOllamaServer.Request> calls =
        OLLAMA.requests("/api/chat").subList(before, OLLAMA.requests("/api/chat").size()).stream()
            .filter(
                r -> {
                  JsonNode messages = r.body().path("messages");
                  return messages
                      .path(messages.size() - 1)
                      .path("content")
                      .asString()
                      .endsWith(" question");
                })
            .toList();
    assertThat(calls).hasSize(2);
    String later = calls.get(1).body().path("messages").toString();
    String earlier = calls.get(0).body().path("messages").toString();
    String firstAsked = earlier.contains("first question") ? "first question" : "second question";
    assertThat(later)
        .as("the second call sees the first exchange: the two were not interleaved")
        .contains(firstAsked)
        .contains("answered");
    assertThat(conversation("user:4", "busy").get("count").asInt()).isEqualTo(2);
  }

  private static BufferedReader openStream(String owner, String conversation, String text)
      throws Exception {
    HttpRequest request =
        api.request("/api/v1/agents/" + AGENT + "/chat/stream")
            .header("Content-Type", "application/json")
            .header("Accept", "text/event-stream")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    chatBody("ownerKey", owner, conversation, text)))
            .build();
    HttpResponse<InputStream> response =
        HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type").orElse(""))
        .startsWith("text/event-stream");
    return new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
  }

  /** Reads events ({name, data}) until the stream ends, or until {@code deltas} deltas came. */
  private static void readEvents(BufferedReader stream, List<String[]> events, int deltas)
      throws IOException {
    String name = null;
    StringBuilder data = new StringBuilder();
    int seen = 0;
    for (String line = stream.readLine(); line != null; line = stream.readLine()) {
      if (line.startsWith("event:")) {
        name = line.substring(6).trim();
      } else if (line.startsWith("data:")) {
        data.append(line.substring(5));
      } else if (line.isEmpty() && name != null) {
        events.add(new String[] {name, data.toString()});
        if (name.equals("delta") && ++seen >= deltas) {
          return;
        }
        name = null;
        data.setLength(0);
      }
    }
  }
}
