package dev.memstack.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.springai.MemstackChatMemoryRepository;
import dev.memstack.springai.ScriptedChatModel;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.JsonNode;

/**
 * Spring AI's chat memory kept by the real host (the built distribution): a Spring Boot application
 * with the starter, {@code memstack.client.chat-memory.*} and a {@code ChatClient} with {@code
 * MessageChatMemoryAdvisor} remembers within a conversation and across a restart of the application
 * (a new context, so a new repository), and the host's conversation log holds each exchange once,
 * none of them a summary or recalled memory. The chat model is scripted and records its prompts.
 */
class ChatMemoryOnTheHostTest {

  static final String AGENT = "e2e-chat-memory";
  static final String OWNER = "api:e2e-chat-memory";

  private static DistHost host;

  @BeforeAll
  static void startHost() throws Exception {
    host = DistHost.start("memstack-chat-memory-host", Map.of());
  }

  @AfterAll
  static void stopHost() {
    if (host != null) {
      host.close();
    }
  }

  // tag::app[]
  /** A Spring Boot application with the starter and memstack.client.chat-memory.enabled=true. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class ChatApplication {

    @Bean
    ChatClient chatClient(ChatClient.Builder builder, ChatMemory chatMemory) {
      return builder.defaultAdvisors(MessageChatMemoryAdvisor.builder(chatMemory).build()).build();
    }
  }

  // end::app[]

  private ConfigurableApplicationContext application(ScriptedChatModel model) {
    return new SpringApplicationBuilder(ChatApplication.class)
        .web(WebApplicationType.NONE)
        .initializers(context -> context.getBeanFactory().registerSingleton("chatModel", model))
        .properties(
            "spring.main.banner-mode=off",
            "memstack.client.base-url=" + host.url(),
            "memstack.client.agent-id=" + AGENT,
            "memstack.client.token=" + DistHost.PLATFORM_TOKEN,
            "memstack.client.timeout=30s",
            "memstack.client.chat-memory.enabled=true",
            "memstack.client.chat-memory.owner-key=" + OWNER)
        .run();
  }

  static String ask(ChatClient chat, String conversationId, String message) {
    return chat.prompt()
        .user(message)
        .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, conversationId))
        .call()
        .content();
  }

  @Test
  void theAppRemembersWithinAConversationAndAcrossARestartAndStoresEachExchangeOnce() {
    ScriptedChatModel first = ScriptedChatModel.replying("Hello Ada!", "You are Ada.");
    try (ConfigurableApplicationContext app = application(first)) {
      assertThat(app.getBean(ChatMemoryRepository.class))
          .isInstanceOf(MemstackChatMemoryRepository.class);
      ChatClient chat = app.getBean(ChatClient.class);

      assertThat(ask(chat, "memory-1", "My name is Ada.")).isEqualTo("Hello Ada!");
      assertThat(ask(chat, "memory-1", "What is my name?")).isEqualTo("You are Ada.");

      assertThat(texts(first.lastPrompt().getInstructions()))
          .as("the second prompt carries the first exchange")
          .containsSubsequence("My name is Ada.", "Hello Ada!", "What is my name?");
    }

    // a restart: a new context, repository and chat memory; only the host remembers
    ScriptedChatModel second = ScriptedChatModel.replying("Still Ada.");
    try (ConfigurableApplicationContext app = application(second)) {
      ChatClient chat = app.getBean(ChatClient.class);

      assertThat(ask(chat, "memory-1", "Remind me of my name?")).isEqualTo("Still Ada.");

      assertThat(texts(second.lastPrompt().getInstructions()))
          .containsSubsequence(
              "My name is Ada.",
              "Hello Ada!",
              "What is my name?",
              "You are Ada.",
              "Remind me of my name?");
      ChatMemoryRepository repository = app.getBean(ChatMemoryRepository.class);
      assertThat(repository.findConversationIds()).containsExactly("memory-1");

      // the same list saved again, and with a summary and recalled memory in front
      List<Message> saved = new ArrayList<>(repository.findByConversationId("memory-1"));
      repository.saveAll("memory-1", saved);
      List<Message> withSummary = new ArrayList<>();
      withSummary.add(
          new UserMessage(MemstackChatMemoryRepository.SUMMARY_PREFIX + "They are called Ada."));
      withSummary.add(
          new UserMessage("<memory-context>\n- name: Ada\n</memory-context>\n\nWho am I?"));
      withSummary.add(new AssistantMessage("Ada, from memory."));
      withSummary.addAll(saved);
      repository.saveAll("memory-1", withSummary);
    }

    JsonNode log =
        host.adminGet("/api/v1/agents/" + AGENT + "/conversations/memory-1?ownerKey=" + OWNER);
    List<String> users =
        StreamSupport.stream(log.get("turns").spliterator(), false)
            .map(t -> t.get("userMessage").asString())
            .toList();
    assertThat(users)
        .as("each exchange stored once, no summary, no recalled memory")
        .containsExactly("My name is Ada.", "What is my name?", "Remind me of my name?");
    assertThat(log.get("turns").toString())
        .doesNotContain("Summary of the earlier", "memory-context", "Who am I");
    assertThat(log.get("turns").get(0).get("triggerSource").asString()).isEqualTo("web");
  }

  @Test
  void deletingAConversationClearsItOnTheHost() {
    ScriptedChatModel model = ScriptedChatModel.replying("Noted.");
    try (ConfigurableApplicationContext app = application(model)) {
      ChatClient chat = app.getBean(ChatClient.class);
      ask(chat, "memory-gone", "Forget this later.");
      ChatMemory memory = app.getBean(ChatMemory.class);
      assertThat(memory.get("memory-gone")).hasSize(2);

      memory.clear("memory-gone");

      assertThat(memory.get("memory-gone")).isEmpty();
      HttpResponse<String> gone =
          host.call(
              "GET",
              "/api/v1/agents/" + AGENT + "/conversations/memory-gone?ownerKey=" + OWNER,
              DistHost.ADMIN_TOKEN,
              null);
      assertThat(gone.statusCode()).isEqualTo(404);
      assertThat(app.getBean(ChatMemoryRepository.class).findConversationIds())
          .doesNotContain("memory-gone");
    }
  }

  private static List<String> texts(List<Message> messages) {
    return messages.stream().map(Message::getText).toList();
  }
}
