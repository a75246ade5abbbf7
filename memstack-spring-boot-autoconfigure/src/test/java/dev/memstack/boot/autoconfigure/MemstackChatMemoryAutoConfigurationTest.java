package dev.memstack.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.client.ScriptedHost;
import dev.memstack.client.ScriptedHost.Reply;
import dev.memstack.springai.MemstackAdvisor;
import dev.memstack.springai.MemstackChatMemoryRepository;
import dev.memstack.springai.MemstackOwnerResolver;
import dev.memstack.springai.ScriptedChatModel;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.memory.InMemoryChatMemoryRepository;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.json.JsonMapper;

/** {@code memstack.client.chat-memory.*}: when the chat memory is wired, and for which owner. */
class MemstackChatMemoryAutoConfigurationTest {

  static final String LIST = "/api/v1/agents/shop-bot/conversations";
  static final String TURNS = "/api/v1/agents/shop-bot/memory/turns";

  private ScriptedHost host;
  private ApplicationContextRunner runner;

  @BeforeEach
  void start() {
    host = ScriptedHost.start();
    host.on(
        "GET",
        LIST,
        Reply.json(
            200,
            "{\"conversations\":[{\"conversationId\":\"c9\",\"turns\":1,"
                + "\"lastTurnAt\":\"2026-12-01T10:00:00Z\"}]}"));
    host.on("POST", "/api/v1/agents/shop-bot/memory/turns", Reply.json(202, "{\"turnId\":\"t\"}"));
    runner =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    MemstackClientAutoConfiguration.class,
                    MemstackChatMemoryAutoConfiguration.class))
            .withPropertyValues(
                "memstack.client.base-url=" + host.url(), "memstack.client.agent-id=shop-bot");
  }

  @AfterEach
  void stop() {
    host.close();
  }

  @Test
  void offByDefault() {
    runner
        .withPropertyValues("memstack.client.chat-memory.owner-key=user:1")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(ChatMemoryRepository.class);
              assertThat(context).doesNotHaveBean(ChatMemory.class);
            });
  }

  @Test
  void enabledItKeepsTheChatMemoryOfTheConfiguredOwnerOnTheHost() {
    runner
        .withPropertyValues(
            "memstack.client.chat-memory.enabled=true",
            "memstack.client.chat-memory.owner-key=user:1",
            "memstack.client.chat-memory.trigger-source=channel")
        .run(
            context -> {
              assertThat(context).hasSingleBean(MemstackChatMemoryRepository.class);
              assertThat(context.getBean(ChatMemory.class))
                  .isInstanceOf(MessageWindowChatMemory.class);
              ChatMemoryRepository repository = context.getBean(ChatMemoryRepository.class);

              assertThat(repository.findConversationIds()).containsExactly("c9");
              repository.saveAll("c1", List.of(new UserMessage("q"), new AssistantMessage("a")));

              assertThat(host.received("GET", LIST).get(0).query()).isEqualTo("ownerKey=user%3A1");
              var turn =
                  JsonMapper.builder()
                      .build()
                      .readTree(
                          host.received("POST", "/api/v1/agents/shop-bot/memory/turns")
                              .get(0)
                              .body());
              assertThat(turn.get("ownerKey").asString()).isEqualTo("user:1");
              assertThat(turn.get("triggerSource").asString()).isEqualTo("channel");
            });
  }

  @Test
  void aResolverBeanDecidesTheOwner() {
    runner
        .withPropertyValues(
            "memstack.client.chat-memory.enabled=true",
            "memstack.client.chat-memory.owner-key=user:1")
        .withBean(MemstackOwnerResolver.class, () -> () -> "user:77")
        .run(
            context -> {
              context.getBean(ChatMemoryRepository.class).findConversationIds();
              assertThat(host.received("GET", LIST).get(0).query()).isEqualTo("ownerKey=user%3A77");
            });
  }

  @Test
  void enabledWithoutAnOwnerFailsNamingTheProperty() {
    runner
        .withPropertyValues("memstack.client.chat-memory.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("memstack.client.chat-memory.owner-key")
                    .hasMessageContaining("MemstackOwnerResolver"));
    runner
        .withPropertyValues(
            "memstack.client.chat-memory.enabled=true",
            "memstack.client.chat-memory.owner-key=user:1",
            "memstack.client.chat-memory.max-messages=0")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("memstack.client.chat-memory.max-messages"));
  }

  @Test
  void withTheChatMemoryOnTheAdvisorOnlyRecallsUnlessToldOtherwise() throws Exception {
    host.on(
        "POST",
        "/api/v1/agents/shop-bot/memory/context",
        Reply.json(200, "{\"systemPrompt\":\"\",\"context\":\"\"}"));
    ApplicationContextRunner withAdvisor =
        runner
            .withConfiguration(
                AutoConfigurations.of(
                    MemstackAdvisorAutoConfiguration.class, ChatClientAutoConfiguration.class))
            .withBean(ChatModel.class, () -> ScriptedChatModel.replying("ok"))
            .withPropertyValues(
                "memstack.client.chat-memory.enabled=true",
                "memstack.client.chat-memory.owner-key=user:1");

    withAdvisor.run(context -> chatOnce(context));
    Thread.sleep(500);
    assertThat(host.received("POST", TURNS)).as("the chat memory hands turns in").isEmpty();

    withAdvisor
        .withPropertyValues("memstack.client.advisor.hand-in-turns=true")
        .run(context -> chatOnce(context));
    host.await("POST", TURNS, 1, Duration.ofSeconds(10));
  }

  private static void chatOnce(org.springframework.context.ApplicationContext context) {
    MemstackAdvisor advisor = context.getBean(MemstackAdvisor.class);
    context
        .getBean(ChatClient.Builder.class)
        .defaultAdvisors(advisor)
        .build()
        .prompt()
        .user("hi")
        .advisors(a -> a.param(MemstackAdvisor.OWNER_KEY, "user:1"))
        .call()
        .content();
    advisor.close();
  }

  @Test
  void theApplicationsOwnRepositoryWins() {
    runner
        .withPropertyValues(
            "memstack.client.chat-memory.enabled=true",
            "memstack.client.chat-memory.owner-key=user:1")
        .withBean(ChatMemoryRepository.class, InMemoryChatMemoryRepository::new)
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(MemstackChatMemoryRepository.class);
              assertThat(context).hasSingleBean(ChatMemory.class);
            });
  }
}
