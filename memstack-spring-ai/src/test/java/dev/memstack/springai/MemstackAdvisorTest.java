package dev.memstack.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.client.ContextAnswer;
import dev.memstack.client.MemstackApiException;
import dev.memstack.client.MemstackClient;
import dev.memstack.client.ScriptedHost;
import dev.memstack.client.ScriptedHost.Received;
import dev.memstack.client.ScriptedHost.Reply;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.tool.annotation.Tool;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class MemstackAdvisorTest {

  static final String CONTEXT = "/api/v1/agents/a1/memory/context";
  static final String TURNS = "/api/v1/agents/a1/memory/turns";
  static final String FENCE =
      "<memory-context>\\n- (vector, personal) user: my cat is called Miso\\n</memory-context>";
  static final String ANSWER =
      """
      {"systemPrompt":"--- AGENTS.md ---\\nBe kind.","ownerPrompt":"--- PROFILE.md ---\\n- Name: Ada",
       "recall":[{"provider":"vector","text":"user: my cat is called Miso","score":0.9,
         "scope":"personal","createdAt":null,"metadata":{"id":"t1#u0"}}],
       "context":"%s",
       "providers":[{"id":"vector","status":"ok","tookMs":5}]}
      """
          .formatted(FENCE);
  static final Duration WAIT = Duration.ofSeconds(5);

  private final JsonMapper json = JsonMapper.builder().build();
  private final RecordingMetrics metrics = new RecordingMetrics();
  private ScriptedHost host;
  private MemstackAdvisor advisor;

  @BeforeEach
  void start() {
    host = ScriptedHost.start();
    host.on("POST", CONTEXT, Reply.json(200, ANSWER));
    host.on("POST", TURNS, Reply.json(202, "{\"turnId\":\"t-1\"}"));
  }

  @AfterEach
  void stop() {
    if (advisor != null) {
      advisor.close();
    }
    host.close();
  }

  private MemstackAdvisor.Builder advisorFor(URI url) {
    MemstackClient client =
        MemstackClient.builder(url).agentId("a1").token("t".repeat(20)).timeout(WAIT).build();
    return MemstackAdvisor.builder(client).metrics(metrics);
  }

  private ChatClient chat(ScriptedChatModel model, MemstackAdvisor.Builder builder) {
    advisor = builder.build();
    return ChatClient.builder(model).defaultAdvisors(advisor).build();
  }

  private JsonNode body(Received request) {
    return json.readTree(request.body());
  }

  @Nested
  @DisplayName("call()")
  class Call {

    @Test
    void theHostsContextGoesIntoTheSystemAndUserMessagesAndTheTurnIsHandedIn() {
      ScriptedChatModel model = ScriptedChatModel.replying("Your cat is called Miso.");
      ChatClient chat = chat(model, advisorFor(host.url()));

      ChatClientResponse response =
          chat.prompt()
              .system("You are a helpful assistant.")
              .user("What is my cat called?")
              .advisors(
                  a ->
                      a.param(MemstackAdvisor.OWNER_KEY, "user:1")
                          .param(ChatMemory.CONVERSATION_ID, "c-42"))
              .call()
              .chatClientResponse();

      JsonNode context = body(host.received("POST", CONTEXT).get(0));
      assertThat(context.get("ownerKey").stringValue()).isEqualTo("user:1");
      assertThat(context.get("conversationId").stringValue()).isEqualTo("c-42");
      assertThat(context.get("query").stringValue()).isEqualTo("What is my cat called?");
      assertThat(model.lastMessageTypes()).containsExactly(SystemMessage.class, UserMessage.class);
      assertThat(model.lastSystemText())
          .isEqualTo(
              "You are a helpful assistant.\n\n--- AGENTS.md ---\nBe kind.\n\n"
                  + "--- PROFILE.md ---\n- Name: Ada");
      assertThat(model.lastUserText())
          .isEqualTo(
              "<memory-context>\n- (vector, personal) user: my cat is called Miso\n"
                  + "</memory-context>\n\nWhat is my cat called?");

      JsonNode turn = body(host.await("POST", TURNS, 1, WAIT).get(0));
      assertThat(turn.get("ownerKey").stringValue()).isEqualTo("user:1");
      assertThat(turn.get("conversationId").stringValue()).isEqualTo("c-42");
      assertThat(turn.get("userMessage").stringValue())
          .as("the user's own words, without the fence")
          .isEqualTo("What is my cat called?");
      assertThat(turn.get("assistantReply").stringValue()).isEqualTo("Your cat is called Miso.");
      assertThat(turn.get("triggerSource").stringValue()).isEqualTo("api");

      ContextAnswer answer = (ContextAnswer) response.context().get(MemstackAdvisor.CONTEXT_ANSWER);
      assertThat(answer.recall())
          .singleElement()
          .satisfies(item -> assertThat(item.metadata()).containsEntry("id", "t1#u0"));
      assertThat(answer.providers()).hasSize(1);
      assertThat(response.context()).containsEntry(MemstackAdvisor.CONVERSATION_ID, "c-42");
      assertThat(metrics.records()).contains("context:ok");
    }

    @Test
    void withoutAnApplicationSystemMessageTheMemoryIsANewFirstSystemMessage() {
      ScriptedChatModel model = ScriptedChatModel.replying("ok");
      ChatClient chat = chat(model, advisorFor(host.url()));

      ask(chat, "hi");

      assertThat(model.lastMessageTypes()).containsExactly(SystemMessage.class, UserMessage.class);
      assertThat(model.lastSystemText()).startsWith("--- AGENTS.md ---").endsWith("Name: Ada");
    }

    @Test
    void anEmptyAnswerLeavesThePromptAsItWas() {
      host.on("POST", CONTEXT, Reply.json(200, "{\"systemPrompt\":\"\",\"context\":\"\"}"));
      ScriptedChatModel model = ScriptedChatModel.replying("ok");
      ChatClient chat = chat(model, advisorFor(host.url()));

      ask(chat, "hi");

      assertThat(model.lastMessageTypes()).containsExactly(UserMessage.class);
      assertThat(model.lastUserText()).isEqualTo("hi");
    }

    @Test
    void theTurnIsHandedInOffTheCallersThread() {
      host.on("POST", TURNS, Reply.json(202, "{\"turnId\":\"t\"}").after(Duration.ofSeconds(2)));
      ChatClient chat = chat(ScriptedChatModel.replying("ok"), advisorFor(host.url()));

      long start = System.nanoTime();
      String reply = ask(chat, "hi");

      assertThat(reply).isEqualTo("ok");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("the call does not wait for the slow turn answer")
          .isLessThan(Duration.ofMillis(1500));
      host.await("POST", TURNS, 1, WAIT);
    }

    @Test
    void withoutHandingInTurnsTheAdvisorOnlyRecalls() {
      ScriptedChatModel model = ScriptedChatModel.replying("ok");
      ChatClient chat =
          chat(model, advisorFor(host.url()).executor(Runnable::run).handInTurns(false));

      ask(chat, "hi");

      assertThat(host.received("POST", CONTEXT)).hasSize(1);
      assertThat(model.lastUserText()).startsWith("<memory-context>");
      assertThat(host.received("POST", TURNS)).as("the chat memory hands the turn in").isEmpty();

      ask(chat(model, advisorFor(host.url()).executor(Runnable::run)), "hi");
      assertThat(host.received("POST", TURNS)).hasSize(1);
    }

    @Test
    void aLongMessageIsCutToTheHostsLongestQueryButHandedInWhole() {
      ScriptedChatModel model = ScriptedChatModel.replying("ok");
      ChatClient chat = chat(model, advisorFor(host.url()));
      String message = "x".repeat(40_000);

      ask(chat, message);

      assertThat(body(host.received("POST", CONTEXT).get(0)).get("query").stringValue())
          .hasSize(32_768);
      assertThat(body(host.await("POST", TURNS, 1, WAIT).get(0)).get("userMessage").stringValue())
          .hasSize(40_000);
    }
  }

  @Nested
  @DisplayName("stream()")
  class Stream {

    @Test
    void aStreamedAnswerIsOneTurnWithTheWholeReply() {
      ScriptedChatModel model = ScriptedChatModel.replying("Your cat is called Miso.");
      ChatClient chat = chat(model, advisorFor(host.url()));

      List<String> chunks =
          chat
              .prompt()
              .user("What is my cat called?")
              .advisors(
                  a ->
                      a.param(MemstackAdvisor.OWNER_KEY, "user:1")
                          .param(ChatMemory.CONVERSATION_ID, "c-7"))
              .stream()
              .content()
              .collectList()
              .block(WAIT);

      assertThat(chunks).hasSizeGreaterThan(1);
      assertThat(String.join("", chunks)).isEqualTo("Your cat is called Miso.");
      assertThat(host.received("POST", CONTEXT)).hasSize(1);
      assertThat(model.lastUserText()).startsWith("<memory-context>").endsWith("cat called?");
      assertThat(model.lastSystemText()).contains("--- AGENTS.md ---");
      List<Received> turns = host.await("POST", TURNS, 1, WAIT);
      JsonNode turn = body(turns.get(0));
      assertThat(turn.get("assistantReply").stringValue()).isEqualTo("Your cat is called Miso.");
      assertThat(turn.get("conversationId").stringValue()).isEqualTo("c-7");
      sleep(300);
      assertThat(host.received("POST", TURNS)).as("one turn per stream, not per chunk").hasSize(1);
    }

    @Test
    void aStreamWithoutOwnerKeyFailsWithTheHowTo() {
      ChatClient chat = chat(ScriptedChatModel.replying("ok"), advisorFor(host.url()));

      assertThatThrownBy(() -> chat.prompt().user("hi").stream().content().blockLast(WAIT))
          .hasMessageContaining("MemstackAdvisor.OWNER_KEY");
      assertThat(host.received()).isEmpty();
    }

    @Test
    void aStreamGoesOnWithoutMemoryWhenTheHostIsDown() throws Exception {
      ScriptedChatModel model = ScriptedChatModel.replying("still here");
      ChatClient chat = chat(model, advisorFor(deadUrl()));

      String reply =
          String.join(
              "",
              chat.prompt().user("hi").advisors(owner("user:1")).stream()
                  .content()
                  .collectList()
                  .block(WAIT));

      assertThat(reply).isEqualTo("still here");
      assertThat(model.lastUserText()).isEqualTo("hi");
      awaitRecord("turn:unreachable");
      assertThat(metrics.records()).contains("context:unreachable");
    }
  }

  @Nested
  @DisplayName("parameters")
  class Parameters {

    @Test
    void withoutOwnerKeyTheCallFailsSayingHowToGiveOne() {
      ScriptedChatModel model = ScriptedChatModel.replying("ok");
      ChatClient chat = chat(model, advisorFor(host.url()));

      assertThatThrownBy(() -> chat.prompt().user("hi").call().content())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(".advisors(a -> a.param(MemstackAdvisor.OWNER_KEY, \"user:42\"))");
      assertThat(host.received()).isEmpty();
      assertThat(model.prompts()).isEmpty();
    }

    @Test
    void withoutConversationIdEachCallGetsANewOne() {
      ChatClient chat = chat(ScriptedChatModel.replying("ok"), advisorFor(host.url()));

      String first = conversationOf(chat);
      String second = conversationOf(chat);

      assertThat(first).isNotEqualTo(second).matches("[0-9a-f-]{36}");
      List<Received> contexts = host.received("POST", CONTEXT);
      assertThat(body(contexts.get(0)).get("conversationId").stringValue()).isEqualTo(first);
      assertThat(body(contexts.get(1)).get("conversationId").stringValue()).isEqualTo(second);
      List<Received> turns = host.await("POST", TURNS, 2, WAIT);
      assertThat(turns)
          .extracting(t -> body(t).get("conversationId").stringValue())
          .containsExactlyInAnyOrder(first, second);
    }

    @Test
    void aConfiguredDefaultConversationIdIsUsedWhenACallGivesNone() {
      ChatClient chat =
          chat(
              ScriptedChatModel.replying("ok"),
              advisorFor(host.url()).defaultConversationId("support-desk"));

      assertThat(conversationOf(chat)).isEqualTo("support-desk");
      assertThat(body(host.received("POST", CONTEXT).get(0)).get("conversationId").stringValue())
          .isEqualTo("support-desk");
      assertThat(
              body(host.await("POST", TURNS, 1, WAIT).get(0)).get("conversationId").stringValue())
          .isEqualTo("support-desk");
    }

    @Test
    void aBlankUserMessageAsksNothingAndHandsInNothing() {
      ChatClient chat = chat(ScriptedChatModel.replying("ok"), advisorFor(host.url()));

      chat.prompt().system("only a system message").call().content();

      sleep(200);
      assertThat(host.received()).isEmpty();
    }

    private String conversationOf(ChatClient chat) {
      ChatClientResponse response =
          chat.prompt().user("hi").advisors(owner("user:1")).call().chatClientResponse();
      return (String) response.context().get(MemstackAdvisor.CONVERSATION_ID);
    }
  }

  @Nested
  @DisplayName("a host that is down, slow or refusing")
  class Failures {

    @Test
    void theChatGoesOnWithoutMemoryWhenTheHostIsDown() throws Exception {
      ScriptedChatModel model = ScriptedChatModel.replying("still here");
      ChatClient chat = chat(model, advisorFor(deadUrl()));

      String reply = ask(chat, "hi");

      assertThat(reply).isEqualTo("still here");
      assertThat(model.lastUserText()).isEqualTo("hi");
      awaitRecord("turn:unreachable");
      assertThat(metrics.records()).containsExactly("context:unreachable", "turn:unreachable");
    }

    @Test
    void aContextCallThatTimesOutLeavesMemoryOut() {
      host.on("POST", CONTEXT, Reply.json(200, ANSWER).after(Duration.ofSeconds(3)));
      MemstackClient impatient =
          MemstackClient.builder(host.url()).agentId("a1").timeout(Duration.ofMillis(300)).build();
      ScriptedChatModel model = ScriptedChatModel.replying("ok");
      ChatClient chat = chat(model, MemstackAdvisor.builder(impatient).metrics(metrics));

      ask(chat, "hi");

      assertThat(model.lastUserText()).isEqualTo("hi");
      assertThat(metrics.records()).first().isEqualTo("context:timeout");
      host.await("POST", TURNS, 1, WAIT);
    }

    @Test
    void aFailingHostOrARefusedMessageLeavesMemoryOut() {
      host.on("POST", CONTEXT, Reply.json(500, "{\"error\":\"internal\",\"message\":\"boom\"}"));
      ScriptedChatModel model = ScriptedChatModel.replying("ok");
      ChatClient chat = chat(model, advisorFor(host.url()));
      ask(chat, "hi");
      host.on(
          "POST",
          CONTEXT,
          Reply.json(400, "{\"error\":\"bad_request\",\"field\":\"query\",\"message\":\"bad\"}"));
      ask(chat, "hi");

      assertThat(model.prompts()).hasSize(2);
      assertThat(model.lastUserText()).isEqualTo("hi");
      assertThat(metrics.records()).contains("context:host_error", "context:refused");
    }

    @Test
    void aHostThatRefusesTheCallerFailsTheCall() {
      ScriptedChatModel model = ScriptedChatModel.replying("ok");
      ChatClient chat = chat(model, advisorFor(host.url()));
      host.on(
          "POST",
          CONTEXT,
          Reply.json(
              403, "{\"error\":\"forbidden\",\"message\":\"this token may act for api:1\"}"));

      assertThatThrownBy(
              () ->
                  chat.prompt()
                      .user("hi")
                      .advisors(a -> a.param(MemstackAdvisor.OWNER_KEY, "api:2"))
                      .call()
                      .content())
          .isInstanceOf(MemstackApiException.class)
          .hasMessageContaining("403 forbidden");
      host.on(
          "POST",
          CONTEXT,
          Reply.json(
              400, "{\"error\":\"bad_request\",\"field\":\"ownerKey\",\"message\":\"bad key\"}"));
      assertThatThrownBy(
              () ->
                  chat.prompt()
                      .user("hi")
                      .advisors(a -> a.param(MemstackAdvisor.OWNER_KEY, "no key"))
                      .call()
                      .content())
          .isInstanceOf(MemstackApiException.class)
          .hasMessageContaining("field ownerKey");
      assertThat(model.prompts()).isEmpty();
    }

    @Test
    void aFailedTurnIsCountedAndTheChatKeepsItsAnswer() {
      host.on("POST", TURNS, Reply.json(503, "{\"error\":\"unavailable\",\"message\":\"full\"}"));
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      ChatClient chat =
          chat(
              ScriptedChatModel.replying("ok"),
              advisorFor(host.url()).metrics(new MicrometerMemstackMetrics(registry)));

      String reply = ask(chat, "hi");

      assertThat(reply).isEqualTo("ok");
      host.await("POST", TURNS, 1, WAIT);
      awaitCount(registry, "turn", "host_error");
      assertThat(count(registry, "context", "ok")).isEqualTo(1.0);
    }

    @Test
    void aTurnTheExecutorRefusesIsCountedAsRejected() {
      ChatClient chat =
          chat(
              ScriptedChatModel.replying("ok"),
              advisorFor(host.url())
                  .executor(
                      task -> {
                        throw new RejectedExecutionException("full");
                      }));

      String reply = ask(chat, "hi");

      assertThat(reply).isEqualTo("ok");
      assertThat(metrics.records()).containsExactly("context:ok", "turn:rejected");
    }

    @Test
    void closingTheAdvisorHandsInTheQueuedTurns() {
      host.on("POST", TURNS, Reply.json(202, "{\"turnId\":\"t\"}").after(Duration.ofMillis(200)));
      ChatClient chat = chat(ScriptedChatModel.replying("ok"), advisorFor(host.url()));
      for (int i = 0; i < 3; i++) {
        ask(chat, "hi " + i);
      }

      advisor.close();

      assertThat(host.received("POST", TURNS))
          .extracting(t -> body(t).get("userMessage").stringValue())
          .containsExactly("hi 0", "hi 1", "hi 2");
    }
  }

  @Nested
  @DisplayName("tool calling")
  class ToolCalling {

    /** A tool the scripted model asks for. */
    static class Clock {
      @Tool(description = "The current time")
      String now() {
        return "12:00";
      }
    }

    @Test
    void oneUserMessageIsOneContextCallAndOneTurnHoweverManyToolRounds() {
      ScriptedChatModel model =
          ScriptedChatModel.answering(
              ScriptedChatModel.toolCall("now", "{}"),
              new org.springframework.ai.chat.messages.AssistantMessage("It is 12:00."));
      ChatClient chat = chat(model, advisorFor(host.url()));

      String reply =
          chat.prompt()
              .user("What time is it?")
              .tools(new Clock())
              .advisors(owner("user:1"))
              .call()
              .content();

      assertThat(advisor.getOrder()).isLessThan(ToolCallingAdvisor.DEFAULT_ORDER);
      assertThat(reply).isEqualTo("It is 12:00.");
      assertThat(model.prompts()).as("the tool round and the answer").hasSize(2);
      assertThat(model.lastPrompt().getInstructions())
          .anyMatch(message -> message instanceof ToolResponseMessage);
      assertThat(model.lastPrompt().getUserMessages())
          .as("the memory is in the user message once, in every round")
          .singleElement()
          .satisfies(user -> assertThat(user.getText()).startsWith("<memory-context>"));
      assertThat(host.received("POST", CONTEXT)).hasSize(1);
      List<Received> turns = host.await("POST", TURNS, 1, WAIT);
      sleep(300);
      assertThat(host.received("POST", TURNS)).hasSize(1);
      assertThat(body(turns.get(0)).get("assistantReply").stringValue()).isEqualTo("It is 12:00.");
    }
  }

  @Nested
  @DisplayName("tool calling, streamed")
  class StreamedToolCalling {

    @Test
    void aStreamedToolRoundIsStillOneContextCallAndOneTurn() {
      ScriptedChatModel model =
          ScriptedChatModel.answering(
              ScriptedChatModel.toolCall("now", "{}"),
              new org.springframework.ai.chat.messages.AssistantMessage("It is 12:00."));
      ChatClient chat = chat(model, advisorFor(host.url()));

      String reply =
          String.join(
              "",
              chat
                  .prompt()
                  .user("What time is it?")
                  .tools(new ToolCalling.Clock())
                  .advisors(owner("user:1"))
                  .stream()
                  .content()
                  .collectList()
                  .block(WAIT));

      assertThat(reply).isEqualTo("It is 12:00.");
      assertThat(model.prompts()).hasSize(2);
      assertThat(host.received("POST", CONTEXT)).hasSize(1);
      List<Received> turns = host.await("POST", TURNS, 1, WAIT);
      sleep(300);
      assertThat(host.received("POST", TURNS)).hasSize(1);
      assertThat(body(turns.get(0)).get("assistantReply").stringValue()).isEqualTo("It is 12:00.");
    }
  }

  /** The advisor parameter of one end user. */
  private static Consumer<ChatClient.AdvisorSpec> owner(String ownerKey) {
    return a -> a.param(MemstackAdvisor.OWNER_KEY, ownerKey);
  }

  /** Asks {@code message} for the end user {@code user:1}; returns the reply. */
  private static String ask(ChatClient chat, String message) {
    return chat.prompt().user(message).advisors(owner("user:1")).call().content();
  }

  private void awaitRecord(String record) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!metrics.records().contains(record)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + record + " in " + metrics.records());
      }
      sleep(20);
    }
  }

  private static void awaitCount(SimpleMeterRegistry registry, String operation, String outcome) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (count(registry, operation, outcome) < 1) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "no " + operation + ":" + outcome + " in " + registry.getMetersAsString());
      }
      sleep(20);
    }
  }

  private static double count(SimpleMeterRegistry registry, String operation, String outcome) {
    var counter =
        registry
            .find(MicrometerMemstackMetrics.CALLS)
            .tag("operation", operation)
            .tag("outcome", outcome)
            .counter();
    return counter == null ? 0 : counter.count();
  }

  private static URI deadUrl() throws Exception {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return URI.create("http://127.0.0.1:" + socket.getLocalPort());
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
