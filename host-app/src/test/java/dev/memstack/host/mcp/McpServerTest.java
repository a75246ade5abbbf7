package dev.memstack.host.mcp;

import static dev.memstack.host.security.TestTokens.ADMIN;
import static dev.memstack.host.security.TestTokens.PLATFORM;
import static dev.memstack.host.security.TestTokens.VIEWER;
import static dev.memstack.host.testing.HostClient.JSON;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.plugin.fixture.FixturePlugin;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import dev.memstack.spi.ToolSpec;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * The MCP server over HTTP, driven by the MCP Java SDK's own client against a real host on a random
 * port with the real vector plugin and the fixture plugin: listing with hints, remembering and
 * recalling with an owner-bound token, the owner rules, 401 without or with a wrong token, and the
 * tool list following a plugin stop and start.
 */
@HostTest
class McpServerTest {

  @Autowired HostClient api;

  private static final String ALICE = "alice-token-0123456789abcdef";

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.create("mcp")
          .withFixturePlugin()
          .withPlugins("vector")
          .disabled("builtin")
          .with("memstack.providers.fixture.type", "fixture")
          .with("memstack.providers.fixture.order", "5")
          .patientDeadlines()
          .tokens(
              new String[] {ADMIN, "admin", null},
              new String[] {VIEWER, "viewer", null},
              new String[] {ALICE, "member", "api:alice"},
              new String[] {PLATFORM, "member", "api:*"});

  @LocalServerPort int port;

  @Autowired StackMembers members;

  private final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();

  @AfterEach
  void closeClients() {
    clients.forEach(McpSyncClient::closeGracefully);
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
  void controlCharactersAndLookAlikeOwnerKeysAreRefusedNamingTheArgument() {
    McpSyncClient alice = client(ALICE);
    for (String bad : List.of("a\u0000b", "red \u001b[31m", "ding\u0007")) {
      assertThat(error(call(alice, "memory_remember", Map.of("text", bad))))
          .containsEntry("error", "bad_request")
          .containsEntry("field", "text");
    }
    McpSyncClient platform = client(PLATFORM);
    assertThat(
            error(
                call(
                    platform,
                    "memory_remember",
                    Map.of("ownerKey", "api:p\u0430ypal", "text", "look-alike owner"))))
        .containsEntry("error", "bad_request")
        .containsEntry("field", "ownerKey");
    assertThat(
            error(
                call(
                    platform,
                    "memory_context",
                    Map.of("ownerKey", "api:a\u200bb", "query", "anything"))))
        .containsEntry("field", "ownerKey");
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
    String initialize =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
    for (String token : new String[] {null, "wrong-token-0123456789abcdef"}) {
      Answer answer = api.as(token).mcp(initialize).expect(401);
      assertThat(answer.headers().firstValue("WWW-Authenticate"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
      assertThat(answer.error()).isEqualTo("unauthorized");
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
      awaitAToolListNotified(notified, false);
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
    awaitAToolListNotified(notified, true);
    assertThat(client.listTools().tools())
        .extracting(McpServerTest::name)
        .contains("fixture__echo");
  }

  /**
   * Waits until a tool list is notified that has {@code fixture__echo} in it or, if not {@code
   * listed}, one that has it not.
   */
  private static void awaitAToolListNotified(List<List<String>> notified, boolean listed) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(notified)
                    .anySatisfy(
                        names -> assertThat(names.contains("fixture__echo")).isEqualTo(listed)));
  }

  private int plugin(String operation) {
    String path = "/api/v1/plugins/" + FixturePlugin.ID + "/" + operation;
    HostClient admin = api.as(ADMIN);
    return admin.send(admin.request(path).POST(HttpRequest.BodyPublishers.noBody())).status();
  }
}
