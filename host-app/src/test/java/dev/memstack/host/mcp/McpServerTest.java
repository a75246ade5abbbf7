package dev.memstack.host.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.plugin.PluginZips;
import dev.memstack.host.plugin.fixture.FixturePlugin;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.security.TestTokens;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.ToolSpec;
import dev.memstack.tck.HashingEmbedder;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The MCP server over HTTP, driven by the MCP Java SDK's own client against a real host on a random
 * port with the real vector plugin and the fixture plugin: listing with hints, remembering and
 * recalling with an owner-bound token, the owner rules, 401 without or with a wrong token, and the
 * tool list following a plugin stop and start.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class McpServerTest {

  private static final String ADMIN = "admin-token-0123456789abcdef";
  private static final String VIEWER = "viewer-token-0123456789abcdef";
  private static final String ALICE = "alice-token-0123456789abcdef";
  private static final String PLATFORM = "platform-token-0123456789abcdef";

  private static final Path TEMP = temp();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @LocalServerPort int port;

  @Autowired StackMembers members;

  private final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();

  private static Path temp() {
    try {
      return Files.createTempDirectory("memstack-mcp-test");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    Path plugins = TEMP.resolve("plugins");
    FixturePlugin.build(plugins, ">=0.1.0");
    try {
      Path vector = PluginZips.zip("vector");
      Files.copy(vector, plugins.resolve(vector.getFileName()));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    registry.add("memstack.plugins.dir", plugins::toString);
    registry.add("memstack.data-dir", () -> TEMP.resolve("data").toString());
    registry.add("memstack.providers.builtin.enabled", () -> "false");
    registry.add("memstack.providers.fixture.type", () -> "fixture");
    registry.add("memstack.providers.fixture.order", () -> "5");
    registry.add("memstack.models.onnx.warm-up", () -> "false");
    registry.add("memstack.stack.context.provider-timeout", () -> "5s");
    registry.add("memstack.stack.context.deadline", () -> "8s");
    String[][] tokens = {
      {ADMIN, "admin", null},
      {VIEWER, "viewer", null},
      {ALICE, "member", "api:alice"},
      {PLATFORM, "member", "api:*"}
    };
    TestTokens.configure(registry, tokens);
  }

  @TestConfiguration
  static class TestEmbedder {
    @Bean
    @Primary
    Embedder testEmbedder() {
      return new HashingEmbedder();
    }
  }

  @AfterEach
  void closeClients() {
    clients.forEach(McpSyncClient::closeGracefully);
  }

  @AfterAll
  static void cleanUp() throws IOException {
    FileSystemUtils.deleteRecursively(TEMP);
  }

  // ---- the client, as docs/integrating.md shows it

  /** An MCP client of the host that sends {@code token}; {@code onToolsChanged} may be null. */
  private McpSyncClient client(String token, Consumer<List<McpSchema.Tool>> onToolsChanged) {
    // tag::client[]
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
            .endpoint("/mcp")
            .httpRequestCustomizer(
                (request, method, uri, body, context) ->
                    request.header("Authorization", "Bearer " + token))
            .build();
    McpClient.SyncSpec spec = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30));
    if (onToolsChanged != null) {
      spec.toolsChangeConsumer(onToolsChanged);
    }
    McpSyncClient client = spec.build();
    client.initialize();
    // end::client[]
    clients.add(client);
    return client;
  }

  private McpSyncClient client(String token) {
    return client(token, null);
  }

  private static CallToolResult call(McpSyncClient client, String tool, Map<String, Object> args) {
    return client.callTool(new CallToolRequest(tool, args, null));
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  private static JsonNode json(CallToolResult result) {
    return JSON.readTree(text(result));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> error(CallToolResult result) {
    assertThat(result.isError()).as("an error result: %s", result.content()).isTrue();
    return (Map<String, Object>) result.structuredContent();
  }

  private static String name(McpSchema.Tool tool) {
    return tool.name();
  }

  // ---- listing

  @Test
  @SuppressWarnings("unchecked")
  void listsTheHostsToolsAndEveryProviderToolWithHintsFromItsDeclaredEffect() {
    List<McpSchema.Tool> tools = client(VIEWER).listTools().tools();

    assertThat(tools)
        .extracting(McpServerTest::name)
        .contains(
            "memory_context",
            "memory_remember",
            "vector__remember",
            "vector__recall",
            "fixture__echo",
            "fixture__search_echo",
            "fixture__conflict")
        .doesNotHaveDuplicates()
        .allSatisfy(
            name -> assertThat(name).hasSizeLessThanOrEqualTo(64).matches("[A-Za-z0-9_-]+"));
    McpSchema.Tool context = tool(tools, "memory_context");
    assertThat(context.annotations().readOnlyHint()).isTrue();
    assertThat(context.annotations().destructiveHint()).isFalse();
    assertThat(context.inputSchema()).extractingByKey("required").isEqualTo(List.of("query"));
    for (StackMember member : members.enabled()) {
      for (ToolSpec spec : member.provider().tools()) {
        McpSchema.Tool tool = tool(tools, member.id() + "__" + spec.name());
        boolean read = spec.effect() == ToolSpec.Effect.READ;
        boolean destructive =
            spec.effect() == ToolSpec.Effect.DESTRUCTIVE
                || spec.effect() == ToolSpec.Effect.UNDECLARED;
        assertThat(tool.annotations().readOnlyHint()).as(tool.name()).isEqualTo(read);
        assertThat(tool.annotations().destructiveHint()).as(tool.name()).isEqualTo(destructive);
        assertThat(tool.description()).startsWith(spec.description());
        assertThat((Map<String, Object>) tool.inputSchema().get("properties"))
            .containsKey("ownerKey");
      }
    }
    ToolSpec remember =
        members.find("vector").orElseThrow().provider().tools().stream()
            .filter(s -> s.name().equals("remember"))
            .findFirst()
            .orElseThrow();
    assertThat(tool(tools, "memory_remember").annotations())
        .isEqualTo(McpToolDefinitions.hints(remember.effect()));
  }

  private static McpSchema.Tool tool(List<McpSchema.Tool> tools, String name) {
    return tools.stream()
        .filter(t -> t.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no tool " + name));
  }

  // ---- owner-bound token

  @Test
  void anOwnerBoundTokenRemembersAndThenRecallsItsOwnersMemory() {
    McpSyncClient alice = client(ALICE);

    CallToolResult stored =
        call(alice, "memory_remember", Map.of("text", "Alice's greyhound Biscuit loves carrots"));
    assertThat(stored.isError()).as(text(stored)).isFalse();
    assertThat(json(stored).get("id").asString()).isNotBlank();

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              CallToolResult recalled =
                  call(alice, "memory_context", Map.of("query", "what does Biscuit love?"));
              assertThat(recalled.isError()).as(text(recalled)).isFalse();
              JsonNode answer = json(recalled);
              assertThat(answer.get("recall").findValuesAsString("text"))
                  .contains("Alice's greyhound Biscuit loves carrots");
              assertThat(answer.get("context").asString()).contains("Biscuit loves carrots");
              assertThat(recalled.structuredContent()).isInstanceOf(Map.class);
            });
  }

  @Test
  void anOwnerBoundTokenIsRefusedAnotherOwnersMemory() {
    McpSyncClient platform = client(PLATFORM);
    CallToolResult bobs =
        call(
            platform,
            "memory_remember",
            Map.of("ownerKey", "api:bob", "text", "Bob's locker code is 4711"));
    assertThat(bobs.isError()).as(text(bobs)).isFalse();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(
                        json(call(
                                platform,
                                "memory_context",
                                Map.of("ownerKey", "api:bob", "query", "locker code")))
                            .get("recall")
                            .findValuesAsString("text"))
                    .contains("Bob's locker code is 4711"));

    McpSyncClient alice = client(ALICE);
    Map<String, Object> refused =
        error(call(alice, "memory_context", Map.of("ownerKey", "api:bob", "query", "locker code")));
    assertThat(refused).containsEntry("error", "forbidden").containsEntry("status", 403);
    assertThat((String) refused.get("message")).contains("api:alice").contains("api:bob");
    assertThat(error(call(alice, "vector__recall", Map.of("ownerKey", "api:bob", "query", "code"))))
        .containsEntry("error", "forbidden");
    assertThat(
            error(
                call(alice, "memory_remember", Map.of("ownerKey", "api:bob", "text", "I am Bob"))))
        .containsEntry("error", "forbidden");

    CallToolResult own = call(alice, "memory_context", Map.of("query", "Bob's locker code 4711"));
    assertThat(own.isError()).as(text(own)).isFalse();
    assertThat(text(own)).doesNotContain("Bob's locker code is 4711");
  }

  @Test
  void aPrefixBoundTokenNamesTheOwnerWithinItsPrefix() {
    McpSyncClient platform = client(PLATFORM);

    Map<String, Object> missing = error(call(platform, "memory_remember", Map.of("text", "x y")));
    assertThat(missing).containsEntry("error", "bad_request").containsEntry("field", "ownerKey");
    assertThat(
            error(
                call(
                    platform, "memory_context", Map.of("ownerKey", "user:9", "query", "anything"))))
        .containsEntry("error", "forbidden");
    assertThat(
            error(
                call(
                    platform,
                    "memory_context",
                    Map.of("ownerKey", "not an owner", "query", "anything"))))
        .containsEntry("error", "bad_request")
        .containsEntry("field", "ownerKey");
  }

  @Test
  void aViewerTokenReadsButDoesNotWrite() {
    McpSyncClient viewer = client(VIEWER);

    CallToolResult read =
        call(viewer, "memory_context", Map.of("ownerKey", "api:carol", "query", "hello"));
    assertThat(read.isError()).as(text(read)).isFalse();
    Map<String, Object> write =
        error(call(viewer, "memory_remember", Map.of("ownerKey", "api:carol", "text", "hi")));
    assertThat(write).containsEntry("error", "forbidden");
    assertThat((String) write.get("message")).contains("member");
  }

  @Test
  void providerToolErrorsBecomeErrorResultsWithTheRestStatus() {
    McpSyncClient admin = client(ADMIN);

    assertThat(error(call(admin, "fixture__conflict", Map.of())))
        .containsEntry("error", "conflict")
        .containsEntry("status", 409);
    CallToolResult echo =
        call(admin, "fixture__echo", Map.of("ownerKey", "api:dave", "text", "hello"));
    assertThat(echo.isError()).as(text(echo)).isFalse();
    assertThat(json(echo).get("owner").asString()).isEqualTo("api:dave");
    assertThat(json(echo).get("arguments").get("text").asString()).isEqualTo("hello");
  }

  @Test
  void theAgentComesFromTheUrlOfTheEndpoint() {
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp?agentId=not%20an%20agent")
                    .httpRequestCustomizer(
                        (request, method, uri, body, context) ->
                            request.header("Authorization", "Bearer " + ALICE))
                    .build())
            .build();
    clients.add(client);
    client.initialize();

    assertThat(error(call(client, "memory_context", Map.of("query", "hello"))))
        .containsEntry("error", "bad_request")
        .containsEntry("field", "agentId");
  }

  // ---- authentication

  @Test
  void withoutATokenOrWithAWrongOneTheEndpointAnswers401() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String initialize =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
    for (String authorization : new String[] {null, "Bearer wrong-token-0123456789abcdef"}) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
              .header("Content-Type", "application/json")
              .header("Accept", "application/json, text/event-stream")
              .POST(HttpRequest.BodyPublishers.ofString(initialize));
      if (authorization != null) {
        request.header("Authorization", authorization);
      }
      HttpResponse<String> answer =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).isEqualTo(401);
      assertThat(answer.headers().firstValue("WWW-Authenticate"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
      assertThat(JSON.readTree(answer.body()).get("error").asString()).isEqualTo("unauthorized");
    }
    assertThatThrownBy(() -> client("wrong-token-0123456789abcdef"))
        .isInstanceOf(RuntimeException.class);
  }

  // ---- tools follow the plugins

  @Test
  void stoppingAPluginTakesItsToolsOffAndStartingItBringsThemBack() throws Exception {
    List<List<String>> notified = new CopyOnWriteArrayList<>();
    McpSyncClient client =
        client(ADMIN, tools -> notified.add(tools.stream().map(McpSchema.Tool::name).toList()));
    assertThat(client.listTools().tools())
        .extracting(McpServerTest::name)
        .contains("fixture__echo");

    assertThat(plugin("stop")).isEqualTo(200);
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(notified)
                      .anySatisfy(names -> assertThat(names).doesNotContain("fixture__echo")));
      assertThat(client.listTools().tools())
          .extracting(McpServerTest::name)
          .doesNotContain("fixture__echo", "fixture__search_echo", "fixture__conflict")
          .contains("memory_context", "vector__remember");
      assertThatThrownBy(() -> call(client, "fixture__echo", Map.of()))
          .hasMessageContaining("Unknown tool");
      notified.clear();
    } finally {
      assertThat(plugin("start")).isEqualTo(200);
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(notified)
                    .anySatisfy(names -> assertThat(names).contains("fixture__echo")));
    assertThat(client.listTools().tools())
        .extracting(McpServerTest::name)
        .contains("fixture__echo");
  }

  private int plugin(String operation) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(
                    "http://127.0.0.1:"
                        + port
                        + "/api/v1/plugins/"
                        + FixturePlugin.ID
                        + "/"
                        + operation))
            .header("Authorization", "Bearer " + ADMIN)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    return HttpClient.newHttpClient()
        .send(request, HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }
}
