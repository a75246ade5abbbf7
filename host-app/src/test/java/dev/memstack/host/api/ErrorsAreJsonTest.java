package dev.memstack.host.api;

import static dev.memstack.host.security.TestTokens.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import dev.memstack.host.testing.RawHttp;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every error the host sends is the documented {@code ApiError} JSON: what Tomcat refuses before
 * any filter (encoded slash, backslash or NUL, raw characters HTTP forbids, a negative {@code
 * Content-Length}, oversized headers or URLs, {@code CONNECT}), {@code /error} asked directly,
 * {@code TRACE}, wildcard content types (415, not 500) and dot segments in actuator paths — sent
 * over a raw socket where an HTTP client would refuse to send them.
 */
@HostTest
class ErrorsAreJsonTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @RegisterExtension
  static final HostFolder HOST = HostFolder.fixtureOnly("errors-json").adminToken();

  @Autowired HostClient api;

  @LocalServerPort int port;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "GET /api/v1/a%2Fb HTTP/1.1",
        "GET /api/v1/a%5Cb HTTP/1.1",
        "GET /api/v1/a%00b HTTP/1.1",
        "GET /api/v1/a\\b HTTP/1.1",
        "GET /api/v1/a<b HTTP/1.1",
        "GET /api/v1/a|b HTTP/1.1",
        "CONNECT 127.0.0.1:80 HTTP/1.1",
        "TRACE /api/v1/plugins HTTP/1.1",
        "GET /error HTTP/1.1",
        "POST /error HTTP/1.1",
        "DELETE /error HTTP/1.1",
        "GET /actuator/health/./providers HTTP/1.1",
        "GET /actuator/health/../prometheus HTTP/1.1",
        "GET /actuator/nope HTTP/1.1",
        "BREW /api/v1/plugins HTTP/1.1",
        "GET /api/v1/plugins;x=1 HTTP/1.1",
        "GET /api/v1/agents/a;b/conversations/c1?ownerKey=user:1 HTTP/1.1",
        "GET /api/v1/a%C0%AFb HTTP/1.1",
        "GET /api/v1/plugins/%ED%A0%80 HTTP/1.1",
        "GET /api/v1/plugins?x=%C0%AF HTTP/1.1",
        "GET /api/v1/plugins?x=%E2%82 HTTP/1.1",
      })
  void refusedRequestsAnswerApiErrorJson(String requestLine) throws IOException {
    RawHttp.Answer answer = raw(requestLine, "Authorization: Bearer " + ADMIN);
    assertApiError(answer);
  }

  @Test
  void aNegativeContentLengthIsApiErrorJson() throws IOException {
    assertApiError(
        raw(
            "POST /api/v1/agents/a1/memory/context HTTP/1.1",
            "Authorization: Bearer " + ADMIN,
            "Content-Type: application/json",
            "Content-Length: -1"));
  }

  @Test
  void oversizedHeadersAndUrlsAreApiErrorJson() throws IOException {
    assertApiError(raw("GET /api/v1/plugins HTTP/1.1", "X-Big: " + "a".repeat(9000)));
    assertApiError(raw("GET /api/v1/plugins?q=" + "a".repeat(9000) + " HTTP/1.1"));
  }

  @Test
  void aRepeatedQueryParameterIsRefusedNotJoined() throws IOException {
    RawHttp.Answer answer =
        raw(
            "GET /api/v1/agents/a1/conversations/c1?ownerKey=api:7&ownerKey=user:9 HTTP/1.1",
            "Authorization: Bearer " + ADMIN);
    assertApiError(answer);
    assertThat(answer.status()).isEqualTo(400);
    assertThat(JSON.readTree(answer.body()).get("field").asString()).isEqualTo("ownerKey");
  }

  @Test
  void aDuplicateJsonKeyIsA400NamingIt() {
    Answer answer =
        api.post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"user:1\",\"query\":\"a\",\"query\":\"b\"}");
    assertThat(answer.status()).as(answer.body()).isEqualTo(400);
    assertThat(answer.json().get("message").asString()).contains("query");
  }

  @ParameterizedTest
  @ValueSource(strings = {"*/*", "application/*", "not a type"})
  void wildcardContentTypesAre415(String type) {
    for (String path :
        List.of("/api/v1/agents/a1/memory/context", "/api/v1/agents/a1/memory/turns")) {
      Answer answer =
          api.send(
              api.request(path)
                  .header("Content-Type", type)
                  .POST(HttpRequest.BodyPublishers.ofString("{\"ownerKey\":\"user:1\"}")));
      assertThat(answer.status()).as(answer.body()).isEqualTo(415);
      assertThat(answer.error()).isEqualTo("unsupported_media_type");
    }
  }

  private static void assertApiError(RawHttp.Answer answer) {
    assertThat(answer.status()).as(answer.text()).isBetween(400, 599);
    assertThat(answer.headers().toLowerCase()).contains("content-type: application/json");
    JsonNode body = JSON.readTree(answer.body());
    assertThat(body.get("error").asString()).as(answer.text()).isNotBlank();
    assertThat(body.get("message").asString()).isNotBlank();
    assertThat(answer.body())
        .doesNotContain("<html")
        .doesNotContain("999")
        .doesNotContain("Exception")
        .doesNotContain("\tat ")
        .doesNotContain("Tomcat");
  }

  private RawHttp.Answer raw(String requestLine, String... headers) throws IOException {
    return RawHttp.send(port, requestLine, headers);
  }
}
