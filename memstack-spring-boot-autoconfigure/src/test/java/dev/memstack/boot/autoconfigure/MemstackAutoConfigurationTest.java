package dev.memstack.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.client.MemstackClient;
import dev.memstack.client.MemstackConnectionException;
import dev.memstack.client.ScriptedHost;
import dev.memstack.client.ScriptedHost.Reply;
import dev.memstack.springai.MemstackAdvisor;
import dev.memstack.springai.MemstackMetrics;
import dev.memstack.springai.MicrometerMemstackMetrics;
import dev.memstack.springai.ScriptedChatModel;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class MemstackAutoConfigurationTest {

  static final String CONTEXT = "/api/v1/agents/shop-bot/memory/context";
  static final String TOKEN = "starter-test-token-0123456789";

  private ScriptedHost host;
  private ApplicationContextRunner runner;

  @BeforeEach
  void start() {
    host = ScriptedHost.start();
    host.on(
        "POST",
        CONTEXT,
        Reply.json(
            200,
            "{\"systemPrompt\":\"\",\"context\":\"<memory-context>\\nx\\n</memory-context>\"}"));
    host.on("POST", "/api/v1/agents/shop-bot/memory/turns", Reply.json(202, "{\"turnId\":\"t\"}"));
    runner =
        new ApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(
                    MemstackClientAutoConfiguration.class,
                    MemstackAdvisorAutoConfiguration.class,
                    ChatClientAutoConfiguration.class))
            .withBean(ChatModel.class, () -> ScriptedChatModel.replying("ok"))
            .withPropertyValues(
                "memstack.client.base-url=" + host.url(),
                "memstack.client.agent-id=shop-bot",
                "memstack.client.token=" + TOKEN);
  }

  @AfterEach
  void stop() {
    host.close();
  }

  @Test
  void theClientComesFromTheProperties() {
    runner
        .withPropertyValues("memstack.client.timeout=300ms")
        .run(
            context -> {
              MemstackClient client = context.getBean(MemstackClient.class);
              assertThat(client.agentId()).isEqualTo("shop-bot");
              assertThat(client.baseUrl()).isEqualTo(host.url());
              host.on("GET", "/api/v1/agents/shop-bot/tools", Reply.json(200, "{\"tools\":[]}"));
              assertThat(client.tools()).isEmpty();
              assertThat(host.received().get(0).header("Authorization"))
                  .isEqualTo("Bearer " + TOKEN);
              host.on(
                  "GET",
                  "/api/v1/agents/shop-bot/tools",
                  Reply.json(200, "{\"tools\":[]}").after(Duration.ofSeconds(3)));
              try {
                client.tools();
                throw new AssertionError("the 300 ms timeout did not apply");
              } catch (MemstackConnectionException e) {
                assertThat(e.timedOut()).isTrue();
              }
            });
  }

  @Test
  void withoutAgentIdTheStartFailsNamingTheKey() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MemstackClientAutoConfiguration.class))
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("memstack.client.agent-id is required"));
  }

  @Test
  void anInvalidSettingFailsTheStartNamingItsKey() {
    runner
        .withPropertyValues("memstack.client.agent-id=not valid")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("memstack.client.agent-id: agentId must be"));
    runner
        .withPropertyValues("memstack.client.base-url=ftp://host")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("memstack.client.base-url: baseUrl must be"));
    runner
        .withPropertyValues("memstack.client.timeout=0s")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("memstack.client.timeout: timeout must be positive"));
  }

  @Test
  void anApplicationsOwnClientWinsAndTheAdvisorUsesIt() {
    MemstackClient own =
        MemstackClient.builder(URI.create("http://127.0.0.1:1")).agentId("own").build();
    runner
        .withBean(MemstackClient.class, () -> own)
        .run(
            context -> {
              assertThat(context).hasSingleBean(MemstackClient.class);
              assertThat(context.getBean(MemstackClient.class)).isSameAs(own);
              assertThat(context).hasSingleBean(MemstackAdvisor.class);
            });
  }

  @Test
  void anApplicationsOwnAdvisorWins() {
    runner
        .withBean(
            "myAdvisor",
            MemstackAdvisor.class,
            () ->
                MemstackAdvisor.builder(MemstackClient.builder(host.url()).agentId("other").build())
                    .order(7)
                    .build())
        .run(
            context -> {
              assertThat(context).hasSingleBean(MemstackAdvisor.class);
              assertThat(context.getBean(MemstackAdvisor.class).getOrder()).isEqualTo(7);
            });
  }

  @Test
  void theAdvisorTakesItsSettingsFromTheProperties() {
    runner
        .withPropertyValues(
            "memstack.client.advisor.order=42",
            "memstack.client.advisor.default-conversation-id=desk",
            "memstack.client.advisor.trigger-source=web",
            "memstack.client.advisor.limit=3")
        .run(
            context -> {
              MemstackAdvisor advisor = context.getBean(MemstackAdvisor.class);
              assertThat(advisor.getOrder()).isEqualTo(42);
              ChatClient chat =
                  context.getBean(ChatClient.Builder.class).defaultAdvisors(advisor).build();
              chat.prompt()
                  .user("hi")
                  .advisors(a -> a.param(MemstackAdvisor.OWNER_KEY, "api:1"))
                  .call()
                  .content();
              JsonNode request = json(host.received("POST", CONTEXT).get(0).body());
              assertThat(request.get("conversationId").stringValue()).isEqualTo("desk");
              assertThat(request.get("limit").intValue()).isEqualTo(3);
              JsonNode turn =
                  json(
                      host.await(
                              "POST",
                              "/api/v1/agents/shop-bot/memory/turns",
                              1,
                              Duration.ofSeconds(5))
                          .get(0)
                          .body());
              assertThat(turn.get("triggerSource").stringValue()).isEqualTo("web");
            });
  }

  @Test
  void theAdvisorDefaultsToSpringAisChatMemoryOrder() {
    runner.run(
        context ->
            assertThat(context.getBean(MemstackAdvisor.class).getOrder())
                .isEqualTo(Advisor.DEFAULT_CHAT_MEMORY_PRECEDENCE_ORDER));
  }

  @Test
  void theAutoConfiguredChatClientBuilderHasNoMemoryUnlessAutoRegisterIsOn() {
    runner.run(
        context -> {
          context.getBean(ChatClient.Builder.class).build().prompt().user("hi").call().content();
          assertThat(host.received()).isEmpty();
        });
  }

  @Test
  void withAutoRegisterEveryChatClientOfTheBuilderHasMemory() {
    runner
        .withPropertyValues("memstack.client.advisor.auto-register=true")
        .run(
            context -> {
              ScriptedChatModel model = (ScriptedChatModel) context.getBean(ChatModel.class);
              context
                  .getBean(ChatClient.Builder.class)
                  .build()
                  .prompt()
                  .user("hi")
                  .advisors(
                      a ->
                          a.param(MemstackAdvisor.OWNER_KEY, "api:1")
                              .param(ChatMemory.CONVERSATION_ID, "c1"))
                  .call()
                  .content();
              assertThat(host.received("POST", CONTEXT)).hasSize(1);
              assertThat(model.lastUserText()).startsWith("<memory-context>").endsWith("hi");
            });
  }

  @Test
  void closingTheApplicationHandsInTheQueuedTurns() {
    String turns = "/api/v1/agents/shop-bot/memory/turns";
    host.on("POST", turns, Reply.json(202, "{\"turnId\":\"t\"}").after(Duration.ofMillis(300)));
    runner.run(
        context -> {
          ChatClient chat =
              context
                  .getBean(ChatClient.Builder.class)
                  .defaultAdvisors(context.getBean(MemstackAdvisor.class))
                  .build();
          for (int i = 0; i < 2; i++) {
            chat.prompt()
                .user("hi " + i)
                .advisors(a -> a.param(MemstackAdvisor.OWNER_KEY, "api:1"))
                .call()
                .content();
          }
        });

    assertThat(host.received("POST", turns)).as("handed in before the context closed").hasSize(2);
  }

  @Test
  void withoutSpringAiThereIsAClientAndNoAdvisor() {
    runner
        .withClassLoader(new FilteredClassLoader(ChatClient.class))
        .run(
            context -> {
              assertThat(context).hasSingleBean(MemstackClient.class);
              assertThat(context).doesNotHaveBean(MemstackAdvisor.class);
            });
  }

  @Test
  void aMeterRegistryGetsTheAdvisorsCounters() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context ->
                assertThat(context.getBean(MemstackMetrics.class))
                    .isInstanceOf(MicrometerMemstackMetrics.class));
  }

  @Test
  void withoutMicrometerTheAdvisorStillStarts() {
    runner
        .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
        .run(
            context -> {
              assertThat(context).hasSingleBean(MemstackAdvisor.class);
              assertThat(context).doesNotHaveBean(MemstackMetrics.class);
            });
  }

  @Test
  void everyPropertyHasADescriptionInTheConfigurationMetadata() throws Exception {
    JsonNode metadata;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("the configuration processor's output").isNotNull();
      metadata = JsonMapper.builder().build().readTree(in);
    }
    java.util.Map<String, String> descriptions = new java.util.TreeMap<>();
    metadata
        .get("properties")
        .forEach(
            p -> descriptions.put(p.get("name").stringValue(), p.path("description").asString("")));
    assertThat(descriptions)
        .containsKeys(
            "memstack.client.base-url",
            "memstack.client.token",
            "memstack.client.agent-id",
            "memstack.client.timeout",
            "memstack.client.connect-timeout",
            "memstack.client.advisor.auto-register",
            "memstack.client.advisor.order",
            "memstack.client.advisor.default-conversation-id",
            "memstack.client.advisor.trigger-source",
            "memstack.client.advisor.limit",
            "memstack.client.advisor.hand-in-turns",
            "memstack.client.chat-memory.enabled",
            "memstack.client.chat-memory.owner-key",
            "memstack.client.chat-memory.trigger-source",
            "memstack.client.chat-memory.max-messages");
    assertThat(descriptions)
        .allSatisfy((name, description) -> assertThat(description).isNotBlank());
  }

  private static JsonNode json(String body) {
    return JsonMapper.builder().build().readTree(body);
  }
}
