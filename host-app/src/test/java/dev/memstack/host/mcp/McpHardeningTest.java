package dev.memstack.host.mcp;

import static dev.memstack.host.security.TestTokens.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The MCP endpoint under attack and misuse, over raw HTTP against a real host: a session belongs to
 * the token that opened it (another token gets 404 on POST, the GET stream and DELETE, and the
 * owner's session survives); malformed JSON-RPC gets JSON-RPC's own error codes, never a 500; an
 * unknown method is answered at once; and no error body carries a stack trace or an exception's
 * fields.
 */
@HostTest
class McpHardeningTest {

  private static final String ALICE = "alice-token-0123456789abcdef";
  private static final String BOB = "bob-token-0123456789abcdef01";
  private static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
          + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.fixtureOnly("mcp-hardening")
          .patientDeadlines()
          .tokens(
              new String[] {ADMIN, "admin", null},
              new String[] {ALICE, "member", "api:alice"},
              new String[] {BOB, "member", "api:bob"});

  @Autowired HostClient api;

  private String open(String token) {
    Answer answer = api.as(token).mcp(INITIALIZE);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    String session = answer.headers().firstValue("Mcp-Session-Id").orElseThrow();
    Answer initialized =
        send(token, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assertThat(initialized.status()).isEqualTo(202);
    return session;
  }

  private Answer send(String token, String session, String message) {
    return api.as(token)
        .send(
            api.as(token)
                .request("/mcp")
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("Mcp-Session-Id", session)
                .POST(HttpRequest.BodyPublishers.ofString(message)));
  }

  private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}";

  @Test
  void aSessionIsInvisibleToEveryOtherToken() {
    String session = open(ALICE);

    Answer post = send(BOB, session, LIST);
    assertCleanError(post, 404);
    Answer stream =
        api.as(BOB)
            .send(
                api.as(BOB)
                    .request("/mcp")
                    .timeout(Duration.ofSeconds(10))
                    .header("Accept", "text/event-stream")
                    .header("Mcp-Session-Id", session)
                    .GET());
    assertCleanError(stream, 404);
    Answer delete =
        api.as(ADMIN)
            .send(api.as(ADMIN).request("/mcp").header("Mcp-Session-Id", session).DELETE());
    assertCleanError(delete, 404);

    Answer own = send(ALICE, session, LIST);
    assertThat(own.status()).as(own.body()).isEqualTo(200);
    assertThat(own.body()).contains("\"tools\"");

    Answer closed =
        api.as(ALICE)
            .send(api.as(ALICE).request("/mcp").header("Mcp-Session-Id", session).DELETE());
    assertThat(closed.status()).isLessThan(300);
    assertCleanError(send(ALICE, session, LIST), 404);
  }

  @Test
  void anUnknownSessionIsAShortJsonRpcError() {
    Answer answer = send(ALICE, "no-such-session", LIST);
    assertCleanError(answer, 404);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":5}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"initialize\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"tools/list\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1000000000000000000000000000000,\"method\":\"tools/list\"}",
        "{\"id\":1,\"method\":\"tools/list\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":\"x\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":[1]}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
            + "\"params\":{\"name\":\"memory_context\",\"arguments\":\"x\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
            + "\"params\":{\"name\":\"memory_context\",\"arguments\":[1]}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}",
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}]",
        "\"hello\"",
        "{\"jsonrpc\":\"2.0\",\"id\":1,",
        "",
      })
  void malformedMessagesGetJsonRpcErrorCodesNeverA500(String message) {
    String session = open(ALICE);
    for (Answer answer : List.of(api.as(ALICE).mcp(message), send(ALICE, session, message))) {
      assertCleanError(answer, 400);
      int code = answer.json().get("error").get("code").asInt();
      assertThat(code).isIn(-32700, -32600, -32602);
    }
  }

  @Test
  void deeplyNestedJsonIsAParseError() {
    String message = "[".repeat(5000) + "]".repeat(5000);
    Answer answer = api.as(ALICE).mcp(message);
    assertCleanError(answer, 400);
    assertThat(answer.json().get("error").get("code").asInt()).isIn(-32700, -32600);
  }

  @ParameterizedTest
  @ValueSource(strings = {"\"nope/nope\"", "\"tools/explode\""})
  void anUnknownMethodIsAnsweredAtOnce(String method) {
    String session = open(ALICE);
    Answer answer =
        send(ALICE, session, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":" + method + "}");
    assertThat(answer.took()).isLessThan(Duration.ofSeconds(5));
    assertThat(answer.status()).isEqualTo(200);
    JsonNode body = answer.json();
    assertThat(body.get("id").asInt()).isEqualTo(9);
    assertThat(body.get("error").get("code").asInt()).isEqualTo(-32601);
    assertNoTrace(answer);
  }

  @Test
  void wellFormedCallsStillWork() {
    String session = open(ALICE);
    Answer ping = send(ALICE, session, "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}");
    assertThat(ping.status()).as(ping.body()).isEqualTo(200);
    Answer list = send(ALICE, session, LIST);
    assertThat(list.body()).contains("fixture__echo");
  }

  private static void assertCleanError(Answer answer, int status) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(status);
    JsonNode body = answer.json();
    assertThat(body).as("a JSON body: %s", answer.body()).isNotNull();
    assertThat(body.get("jsonrpc").asString()).isEqualTo("2.0");
    assertThat(body.get("error").get("code").isInt()).isTrue();
    assertThat(body.get("error").get("message").asString()).isNotBlank().hasSizeLessThan(201);
    assertNoTrace(answer);
  }

  private static void assertNoTrace(Answer answer) {
    assertThat(answer.body())
        .doesNotContain("stackTrace")
        .doesNotContain("className")
        .doesNotContain("localizedMessage")
        .doesNotContain("Exception")
        .doesNotContain("\tat ");
  }
}
