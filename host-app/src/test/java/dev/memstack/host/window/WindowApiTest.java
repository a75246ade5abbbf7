package dev.memstack.host.window;

import static dev.memstack.host.security.TestTokens.ADMIN;
import static dev.memstack.host.testing.HostClient.JSON;
import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.FakeOllamaServer;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * The window through a real host with {@code memstack.models.chat=ollama} on a fake Ollama and a
 * budget of 1,000 tokens ({@code memstack.window.default-max-input-tokens}): the route answers the
 * compacted window with the prefixed summary, asks the model once for the same prefix, the context
 * answer carries the same window with its own system prompt and current message, the MCP tool
 * {@code memory_window} answers it too, bad input is a 400 naming the field, and owner erasure
 * removes the summaries.
 */
@HostTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WindowApiTest {

  static final String SUMMARY = "The user asked about trains to Porto every day.";
  static final String ALICE = "alice-window-token-0123456789";

  @AutoClose private static final FakeOllamaServer OLLAMA = ollama();

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.fixtureOnly("window")
          .with("memstack.models.chat", "ollama")
          .with("memstack.models.ollama.base-url", OLLAMA::baseUrl)
          .with("memstack.window.default-max-input-tokens", "1000")
          .with("memstack.window.agents.a2.short-term-memory-size", "4")
          .tokens(new String[] {ADMIN, "admin", null}, new String[] {ALICE, "member", "user:1"});

  @Autowired HostClient api;

  @LocalServerPort int port;

  private static FakeOllamaServer ollama() {
    try {
      FakeOllamaServer server = new FakeOllamaServer(8);
      server.answerChats(
          system -> system.startsWith("You condense the earlier part") ? SUMMARY : "[]");
      return server;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long summaryRequests() {
    return OLLAMA.requests("/api/chat").stream()
        .filter(
            r -> r.body().toString().contains("You condense the earlier part of a conversation"))
        .count();
  }

  private void turns(String owner, int count) {
    for (int i = 1; i <= count; i++) {
      String body =
          "{\"ownerKey\":\""
              + owner
              + "\",\"conversationId\":\"c1\",\"turnId\":\"t"
              + i
              + "\",\"userMessage\":\"Question "
              + i
              + ": which train goes from Lisbon to Porto in the morning, and how long does it"
              + " take?\",\"assistantReply\":\"Answer "
              + i
              + ": the Alfa Pendular leaves at 8:39 and takes about three hours.\","
              + "\"triggerSource\":\"web\"}";
      api.post("/api/v1/agents/a1/memory/turns", body).expect(202);
    }
  }

  @Test
  @Order(1)
  void theRouteAnswersTheCompactedWindowAndAsksTheModelOncePerPrefix() {
    turns("user:1", 30);
    JsonNode window =
        api.get("/api/v1/agents/a1/conversations/c1/window?ownerKey=user:1").expect(200).json();

    assertThat(window.get("agentId").asString()).isEqualTo("a1");
    assertThat(window.get("ownerKey").asString()).isEqualTo("user:1");
    assertThat(window.get("conversationId").asString()).isEqualTo("c1");
    assertThat(window.get("mode").asString()).isEqualTo("compacted");
    assertThat(window.get("counter").asString()).isEqualTo("estimate");
    assertThat(window.get("compacted").asBoolean()).isTrue();
    assertThat(window.get("summary").get("text").asString()).isEqualTo(SUMMARY);
    assertThat(window.get("summary").get("cached").asBoolean()).isFalse();
    assertThat(window.get("tokens").get("budget").asInt()).isEqualTo(1000);
    assertThat(window.get("tokens").get("trigger").asInt()).isEqualTo(750);
    assertThat(window.get("tokens").get("total").asInt()).isLessThanOrEqualTo(1000);
    JsonNode first = window.get("messages").get(0);
    assertThat(first.get("role").asString()).isEqualTo("user");
    assertThat(first.get("kind").asString()).isEqualTo("summary");
    assertThat(first.get("content").asString()).isEqualTo(Windows.SUMMARY_PREFIX + SUMMARY);
    JsonNode messages = window.get("messages");
    JsonNode last = messages.get(messages.size() - 1);
    assertThat(last.get("role").asString()).isEqualTo("assistant");
    assertThat(last.get("content").asString()).startsWith("Answer 30:");
    assertThat(summaryRequests()).isEqualTo(1);

    JsonNode again =
        api.get("/api/v1/agents/a1/conversations/c1/window?ownerKey=user:1").expect(200).json();
    assertThat(again.get("summary").get("cached").asBoolean()).isTrue();
    assertThat(again.get("messages")).isEqualTo(messages);
    assertThat(summaryRequests()).isEqualTo(1);

    // an owner-bound token may leave the owner out
    JsonNode own = api.get("/api/v1/agents/a1/conversations/c1/window", ALICE).expect(200).json();
    assertThat(own.get("messages")).isEqualTo(messages);
    // a budget of its own
    JsonNode small =
        api.get("/api/v1/agents/a1/conversations/c1/window?ownerKey=user:1&maxInputTokens=300")
            .expect(200)
            .json();
    assertThat(small.get("tokens").get("budget").asInt()).isEqualTo(300);
  }

  @Test
  @Order(2)
  void theContextAnswerCarriesTheWindowOnlyWhenAsked() {
    JsonNode plain =
        api.post(
                "/api/v1/agents/a1/memory/context",
                "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"query\":\"And at night?\"}")
            .expect(200)
            .json();
    assertThat(plain.has("window")).isFalse();

    JsonNode answer =
        api.post(
                "/api/v1/agents/a1/memory/context",
                "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"query\":\"And at night?\","
                    + "\"window\":true}")
            .expect(200)
            .json();
    JsonNode window = answer.get("window");
    assertThat(window.get("mode").asString()).isEqualTo("compacted");
    assertThat(window.get("summary").get("cached").asBoolean()).isTrue();
    JsonNode messages = window.get("messages");
    JsonNode current = messages.get(messages.size() - 1);
    assertThat(current.get("kind").asString()).isEqualTo("current");
    assertThat(current.get("role").asString()).isEqualTo("user");
    assertThat(current.get("content").asString()).endsWith("And at night?");
    assertThat(window.get("tokens").get("current").asInt())
        .isEqualTo(current.get("tokens").asInt());
    if (!answer.get("systemPrompt").asString().isBlank()) {
      assertThat(messages.get(0).get("kind").asString()).isEqualTo("system");
    }
  }

  @Test
  @Order(3)
  void badInputIsRefusedNamingTheField() {
    Answer noConversation =
        api.post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"user:1\",\"query\":\"q\",\"window\":true}");
    assertThat(noConversation.status()).isEqualTo(400);
    assertThat(noConversation.json().get("field").asString()).isEqualTo("conversationId");

    for (String budget : new String[] {"12", "abc", "100000001"}) {
      Answer bad =
          api.get(
              "/api/v1/agents/a1/conversations/c1/window?ownerKey=user:1&maxInputTokens=" + budget);
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.json().get("field").asString()).isEqualTo("maxInputTokens");
    }
    Answer noOwner = api.get("/api/v1/agents/a1/conversations/c1/window");
    assertThat(noOwner.status()).isEqualTo(400);
    assertThat(noOwner.json().get("field").asString()).isEqualTo("ownerKey");
    Answer badConversation =
        api.get("/api/v1/agents/a1/conversations/a%01b/window?ownerKey=user:1");
    assertThat(badConversation.status()).isEqualTo(400);
    // another owner's window is not this token's
    assertThat(api.get("/api/v1/agents/a1/conversations/c1/window?ownerKey=user:2", ALICE).status())
        .isEqualTo(403);
  }

  @Test
  @Order(4)
  void theMcpToolAnswersTheSameWindow() {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
            .endpoint("/mcp?agentId=a1")
            .httpRequestCustomizer(
                (request, method, uri, body, context) ->
                    request.header("Authorization", "Bearer " + ALICE))
            .build();
    McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30)).build();
    try {
      client.initialize();
      List<McpSchema.Tool> tools = client.listTools().tools();
      McpSchema.Tool tool =
          tools.stream().filter(t -> t.name().equals("memory_window")).findFirst().orElseThrow();
      assertThat(tool.annotations().readOnlyHint()).isTrue();
      assertThat(tool.inputSchema())
          .extractingByKey("required")
          .isEqualTo(List.of("conversationId"));

      CallToolResult result =
          client.callTool(
              new CallToolRequest("memory_window", Map.of("conversationId", "c1"), null));
      assertThat(result.isError()).as("%s", result.content()).isNotEqualTo(Boolean.TRUE);
      JsonNode window = JSON.readTree(((TextContent) result.content().get(0)).text());
      JsonNode route =
          api.get("/api/v1/agents/a1/conversations/c1/window?ownerKey=user:1").expect(200).json();
      assertThat(window).isEqualTo(route);

      CallToolResult context =
          client.callTool(
              new CallToolRequest(
                  "memory_context",
                  Map.of("query", "And at night?", "conversationId", "c1", "window", true),
                  null));
      assertThat(context.isError()).as("%s", context.content()).isNotEqualTo(Boolean.TRUE);
      JsonNode contextWindow =
          JSON.readTree(((TextContent) context.content().get(0)).text()).get("window");
      assertThat(contextWindow.get("summary")).isEqualTo(route.get("summary"));
      JsonNode contextMessages = contextWindow.get("messages");
      assertThat(contextMessages.get(contextMessages.size() - 1).get("content").asString())
          .endsWith("And at night?");

      CallToolResult bad =
          client.callTool(
              new CallToolRequest(
                  "memory_window", Map.of("conversationId", "c1", "maxInputTokens", 5), null));
      assertThat(bad.isError()).isTrue();
      assertThat(((TextContent) bad.content().get(0)).text()).contains("maxInputTokens");
    } finally {
      client.closeGracefully();
    }
  }

  @Test
  @Order(5)
  void ownerErasureRemovesTheSummaries() {
    JsonNode erased = api.delete("/api/v1/owners/user:1/memory").expect(200).json();
    assertThat(erased.get("conversationSummariesRemoved").asLong()).isEqualTo(1);
    JsonNode window =
        api.get("/api/v1/agents/a1/conversations/c1/window?ownerKey=user:1").expect(200).json();
    assertThat(window.get("messages")).isEmpty();
    assertThat(window.get("summary").isNull()).isTrue();
    assertThat(window.get("mode").asString()).isEqualTo("full");
    java.nio.file.Path summaries = HOST.data().resolve("window-summaries");
    assertThat(filesHolding(summaries, SUMMARY)).isZero();
  }

  private static long filesHolding(java.nio.file.Path root, String text) {
    if (!java.nio.file.Files.isDirectory(root)) {
      return 0;
    }
    try (var files = java.nio.file.Files.walk(root)) {
      return files
          .filter(java.nio.file.Files::isRegularFile)
          .filter(
              f -> {
                try {
                  return java.nio.file.Files.readString(f).contains(text);
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              })
          .count();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
