package dev.memstack.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.springai.MemstackAdvisor;
import dev.memstack.springai.ScriptedChatModel;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Issue 16's "done when": a Spring Boot application with the starter and one line ({@code
 * .defaultAdvisors(memstackAdvisor)}) remembers across conversations against the real host, started
 * from the built distribution. The chat model is scripted and records its prompts; the host, its
 * plugins and its embedding model are the shipped ones. The first question tells a fact, the turn
 * is handed in by the advisor and delivered; the second question, in a new conversation, reaches
 * the model with the fact in the prompt. Once with {@code call()}, once with {@code stream()}, each
 * for its own owner (and neither sees the other's fact).
 */
class AdvisorRemembersAcrossConversationsTest {

  static final Duration DELIVERY = Duration.ofSeconds(90);

  private static DistHost host;

  @BeforeAll
  static void startHost() throws Exception {
    // a busy build machine makes the first provider calls slow; the stack's deadlines are not
    // this test's subject
    host =
        DistHost.start(
            Map.of(
                "memstack.stack.context.provider-timeout", "10s",
                "memstack.stack.context.deadline", "15s",
                "memstack.stack.system-prompt.timeout", "10s"));
  }

  @AfterAll
  static void stopHost() {
    if (host != null) {
      host.close();
    }
  }

  // tag::app[]
  /** A Spring Boot application with the starter on its class path. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class ChatApplication {

    @Bean
    ChatClient chatClient(ChatClient.Builder builder, MemstackAdvisor memstackAdvisor) {
      return builder.defaultAdvisors(memstackAdvisor).build();
    }
  }

  // end::app[]

  // tag::ask[]
  static String ask(ChatClient chat, String ownerKey, String conversationId, String message) {
    return chat.prompt()
        .user(message)
        .advisors(
            a ->
                a.param(MemstackAdvisor.OWNER_KEY, ownerKey)
                    .param(ChatMemory.CONVERSATION_ID, conversationId))
        .call()
        .content();
  }

  // end::ask[]

  static String askStreaming(
      ChatClient chat, String ownerKey, String conversationId, String message) {
    return String.join(
        "",
        chat
            .prompt()
            .user(message)
            .advisors(
                a ->
                    a.param(MemstackAdvisor.OWNER_KEY, ownerKey)
                        .param(ChatMemory.CONVERSATION_ID, conversationId))
            .stream()
            .content()
            .collectList()
            .block(Duration.ofSeconds(60)));
  }

  private ConfigurableApplicationContext application(ScriptedChatModel model) {
    return new SpringApplicationBuilder(ChatApplication.class)
        .web(WebApplicationType.NONE)
        .initializers(context -> context.getBeanFactory().registerSingleton("chatModel", model))
        .properties(
            "spring.main.banner-mode=off",
            "memstack.client.base-url=" + host.url(),
            "memstack.client.agent-id=e2e-agent",
            "memstack.client.token=" + DistHost.PLATFORM_TOKEN,
            "memstack.client.timeout=30s")
        .run();
  }

  @Test
  void aCalledChatRemembersAFactInANewConversation() {
    ScriptedChatModel model =
        ScriptedChatModel.replying("What a lovely name!", "Your cat is called Miso.");
    try (ConfigurableApplicationContext app = application(model)) {
      ChatClient chat = app.getBean(ChatClient.class);
      long delivered = host.delivered("vector");

      assertThat(ask(chat, "api:e2e-call", "call-1", "My cat is called Miso."))
          .isEqualTo("What a lovely name!");
      assertThat(fence(model.lastUserText())).as("nothing to recall yet").doesNotContain("Miso");
      awaitDelivered(delivered + 1);

      String reply = ask(chat, "api:e2e-call", "call-2", "What is my cat called?");

      assertThat(reply).isEqualTo("Your cat is called Miso.");
      assertThat(model.prompts()).hasSize(2);
      assertThat(model.lastUserText()).endsWith("What is my cat called?");
      assertThat(fence(model.lastUserText()))
          .as("the prompt of the second conversation: %s", model.lastPrompt())
          .contains("Miso")
          .doesNotContain("Kiwi");
    }
  }

  @Test
  void aStreamedChatRemembersAFactInANewConversation() {
    ScriptedChatModel model =
        ScriptedChatModel.replying("What a clever bird!", "Your parrot is called Kiwi.");
    try (ConfigurableApplicationContext app = application(model)) {
      ChatClient chat = app.getBean(ChatClient.class);
      long delivered = host.delivered("vector");

      assertThat(askStreaming(chat, "api:e2e-stream", "stream-1", "My parrot is called Kiwi."))
          .isEqualTo("What a clever bird!");
      awaitDelivered(delivered + 1);

      String reply = askStreaming(chat, "api:e2e-stream", "stream-2", "What is my parrot called?");

      assertThat(reply).isEqualTo("Your parrot is called Kiwi.");
      assertThat(model.lastUserText()).endsWith("What is my parrot called?");
      assertThat(fence(model.lastUserText()))
          .as("the prompt of the second conversation: %s", model.lastPrompt())
          .contains("Kiwi")
          .doesNotContain("Miso");
    }
  }

  private static void awaitDelivered(long turns) {
    await("the advisor's turn delivered to the vector provider")
        .atMost(DELIVERY)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> host.delivered("vector") >= turns);
  }

  /** The {@code <memory-context>} block in front of a user message, or "" when there is none. */
  private static String fence(String userText) {
    int start = userText.indexOf("<memory-context>");
    int end = userText.indexOf("</memory-context>");
    return start < 0 || end < start ? "" : userText.substring(start, end);
  }
}
