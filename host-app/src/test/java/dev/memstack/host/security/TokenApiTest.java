package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Managed API tokens over HTTP on a host of its own (the embedded store in its data dir): made by
 * an admin, used at once, listed without a secret and with their last use, revoked at once (401
 * from then on, their MCP session and open stream ended), bound to their owner; configured tokens
 * are listed and cannot be revoked (409 naming the key); every route needs an unbound admin, and a
 * bad body is a 400 naming its field.
 */
@HostTest
class TokenApiTest {

  private static final String BOUND_ADMIN = "test-bound-admin-token-0123456789abcdef";
  private static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
          + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.fixtureOnly("managed-tokens")
          .patientDeadlines()
          .tokens(
              new String[] {TestTokens.ADMIN, "admin", null},
              new String[] {TestTokens.VIEWER, "viewer", null},
              new String[] {TestTokens.MEMBER, "member", null},
              new String[] {BOUND_ADMIN, "admin", "api:*"});

  @Autowired HostClient api;

  private JsonNode create(String body) {
    Answer created = api.post("/api/v1/tokens", body);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json();
  }

  private static JsonNode listed(Answer list, String id) {
    return StreamSupport.stream(list.json().get("tokens").spliterator(), false)
        .filter(token -> id.equals(token.get("id").asString()))
        .findFirst()
        .orElse(null);
  }

  private static void assertStatus(Answer answer, int status) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(status);
  }

  private static void assertBadField(Answer answer, String field) {
    assertStatus(answer, 400);
    assertThat(answer.error()).isEqualTo("bad_request");
    assertThat(answer.json().get("field").asString()).isEqualTo(field);
  }

  @Test
  @DisplayName(
      "a token is made, used at once, listed with its last use and no secret, and revoked: 401 at"
          + " once, 404 the second time")
  void createUseListRevoke() throws IOException {
    Instant before = Instant.now().minusSeconds(1);
    JsonNode created = create("{\"name\":\"support dashboard\",\"role\":\"VIEWER\"}");
    String id = created.get("id").asString();
    String token = created.get("token").asString();

    assertThat(id).matches("[a-z0-9]{12}");
    assertThat(token).matches("ms_" + id + "_[A-Za-z0-9_-]{43}");
    assertThat(created.get("name").asString()).isEqualTo("support dashboard");
    assertThat(created.get("role").asString()).isEqualTo("VIEWER");
    assertThat(created.get("owner").isNull()).isTrue();
    assertThat(Instant.parse(created.get("createdAt").asString())).isAfter(before);
    assertThat(listed(api.get("/api/v1/tokens"), id).get("lastUsedAt").isNull())
        .as("not used yet")
        .isTrue();

    Answer whoami = api.as(token).get("/api/v1/whoami");
    assertStatus(whoami, 200);
    assertThat(whoami.body())
        .isEqualTo(
            "{\"name\":\"support dashboard\",\"role\":\"VIEWER\",\"owner\":null,\"source\":\"api\"}");
    assertStatus(api.as(token).get("/api/v1/plugins"), 200);
    assertStatus(
        api.as(token)
            .post(
                "/api/v1/agents/a1/memory/turns",
                "{\"ownerKey\":\"api:1\",\"conversationId\":\"c1\",\"userMessage\":\"hi\","
                    + "\"assistantReply\":\"ok\",\"triggerSource\":\"api\"}"),
        403);

    Answer list = api.get("/api/v1/tokens");
    assertStatus(list, 200);
    JsonNode entry = listed(list, id);
    assertThat(entry).isNotNull();
    assertThat(entry.get("source").asString()).isEqualTo("api");
    assertThat(entry.get("role").asString()).isEqualTo("VIEWER");
    assertThat(Instant.parse(entry.get("lastUsedAt").asString())).isAfter(before);
    assertThat(entry.propertyNames())
        .containsExactlyInAnyOrder(
            "id", "name", "role", "owner", "source", "createdAt", "lastUsedAt");
    // the secret is base64url, which may hold '_' itself: it starts after "ms_<id>_"
    String secret = token.substring(("ms_" + id + "_").length());
    assertThat(secret).hasSizeGreaterThanOrEqualTo(43);
    assertThat(list.body()).doesNotContain(secret).doesNotContain("hash").doesNotContain("salt");
    String stored = Files.readString(HOST.data().resolve("api-tokens.json"));
    assertThat(stored).contains(id).doesNotContain(secret);
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(HOST.data().resolve("api-tokens.json"))))
        .isEqualTo("rw-------");

    assertStatus(api.delete("/api/v1/tokens/" + id), 204);
    Answer refused = api.as(token).get("/api/v1/whoami");
    assertStatus(refused, 401);
    assertThat(refused.error()).isEqualTo("unauthorized");
    assertThat(listed(api.get("/api/v1/tokens"), id)).isNull();
    assertStatus(api.delete("/api/v1/tokens/" + id), 404);
    assertStatus(api.delete("/api/v1/tokens/no-such-token"), 404);
  }

  @Test
  @DisplayName(
      "configured tokens are listed under their configuration key and a DELETE is a 409 naming it")
  void configuredTokensAreListedAndNotRevocable() {
    Answer list = api.get("/api/v1/tokens");
    JsonNode admin = listed(list, "memstack.security.tokens[0]");
    assertThat(admin).isNotNull();
    assertThat(admin.get("source").asString()).isEqualTo("configuration");
    assertThat(admin.get("role").asString()).isEqualTo("ADMIN");
    assertThat(admin.get("lastUsedAt").isNull()).as("this very call used it").isFalse();
    assertThat(listed(list, "memstack.security.tokens[3]").get("owner").asString())
        .isEqualTo("api:*");
    assertThat(list.body()).doesNotContain(TestTokens.ADMIN).doesNotContain(TestTokens.VIEWER);

    Answer conflict = api.delete("/api/v1/tokens/memstack.security.tokens%5B1%5D");
    assertStatus(conflict, 409);
    assertThat(conflict.error()).isEqualTo("conflict");
    assertThat(conflict.json().get("message").asString())
        .contains("memstack.security.tokens[1]")
        .contains("configured");
    assertStatus(api.as(TestTokens.VIEWER).get("/api/v1/plugins"), 200);

    Answer whoami = api.as(TestTokens.VIEWER).get("/api/v1/whoami");
    assertThat(whoami.body())
        .isEqualTo(
            "{\"name\":\"memstack.security.tokens[1]\",\"role\":\"VIEWER\",\"owner\":null,"
                + "\"source\":\"configuration\"}");
    assertThat(api.as(BOUND_ADMIN).get("/api/v1/whoami").json().get("owner").asString())
        .isEqualTo("api:*");
  }

  @Test
  @DisplayName(
      "managing tokens needs an admin bound to no owner: viewers, members and a bound admin get 403")
  void onlyAnUnboundAdminManagesTokens() {
    String id = create("{\"name\":\"kept\",\"role\":\"MEMBER\"}").get("id").asString();
    for (String token : List.of(TestTokens.VIEWER, TestTokens.MEMBER, BOUND_ADMIN)) {
      HostClient as = api.as(token);
      for (Answer answer :
          List.of(
              as.get("/api/v1/tokens"),
              as.post("/api/v1/tokens", "{\"name\":\"x\",\"role\":\"ADMIN\"}"),
              as.delete("/api/v1/tokens/" + id))) {
        assertStatus(answer, 403);
        assertThat(answer.error()).isEqualTo("forbidden");
      }
      assertStatus(as.get("/api/v1/whoami"), 200);
    }
    assertThat(listed(api.get("/api/v1/tokens"), id)).as("still there").isNotNull();
    assertStatus(api.as(null).get("/api/v1/whoami"), 401);
  }

  @Test
  @DisplayName("a bad body is a 400 naming its field, and makes no token")
  void badBodiesNameTheirField() {
    int before = api.get("/api/v1/tokens").json().get("tokens").size();
    assertBadField(api.post("/api/v1/tokens", "{\"role\":\"VIEWER\"}"), "name");
    assertBadField(api.post("/api/v1/tokens", "{\"name\":\"  \",\"role\":\"VIEWER\"}"), "name");
    assertBadField(
        api.post("/api/v1/tokens", "{\"name\":\"" + "n".repeat(101) + "\",\"role\":\"VIEWER\"}"),
        "name");
    assertBadField(
        api.post("/api/v1/tokens", "{\"name\":\"a\\u0007b\",\"role\":\"VIEWER\"}"), "name");
    assertBadField(api.post("/api/v1/tokens", "{\"name\":\"x\"}"), "role");
    assertBadField(api.post("/api/v1/tokens", "{\"name\":\"x\",\"role\":\"OWNER\"}"), "role");
    assertBadField(api.post("/api/v1/tokens", "{\"name\":\"x\",\"role\":3}"), "role");
    assertBadField(
        api.post("/api/v1/tokens", "{\"name\":\"x\",\"role\":\"VIEWER\",\"owner\":\"api*x\"}"),
        "owner");
    assertBadField(
        api.post("/api/v1/tokens", "{\"name\":\"x\",\"role\":\"VIEWER\",\"owner\":42}"), "owner");
    assertBadField(
        api.post("/api/v1/tokens", "{\"name\":\"x\",\"role\":\"VIEWER\",\"scope\":\"team\"}"),
        "scope");
    assertBadField(api.post("/api/v1/tokens", "[]"), "body");
    assertThat(api.get("/api/v1/tokens").json().get("tokens").size()).isEqualTo(before);
    // any case of a role is taken
    assertThat(create("{\"name\":\"lower\",\"role\":\"member\"}").get("role").asString())
        .isEqualTo("MEMBER");
  }

  @Test
  @DisplayName("a managed token bound to api:42 acts for api:42 and gets 403 for another owner")
  void anOwnerBoundManagedTokenCannotReachAnotherOwner() {
    JsonNode created =
        create("{\"name\":\"end user 42\",\"role\":\"MEMBER\",\"owner\":\"api:42\"}");
    assertThat(created.get("owner").asString()).isEqualTo("api:42");
    HostClient user = api.as(created.get("token").asString());

    assertStatus(
        user.post(
            "/api/v1/agents/a1/memory/context", "{\"ownerKey\":\"api:42\",\"query\":\"hello\"}"),
        200);
    assertStatus(
        user.post(
            "/api/v1/agents/a1/memory/context/preview",
            "{\"ownerKey\":\"api:42\",\"query\":\"hello\"}"),
        200);
    Answer other =
        user.post(
            "/api/v1/agents/a1/memory/context", "{\"ownerKey\":\"api:43\",\"query\":\"hello\"}");
    assertStatus(other, 403);
    assertThat(other.json().get("message").asString())
        .isEqualTo("this token may act for api:42 only, not for api:43");
    assertStatus(user.delete("/api/v1/owners/api:43/memory"), 403);
    assertThat(user.get("/api/v1/whoami").json().get("owner").asString()).isEqualTo("api:42");
  }

  @Test
  @DisplayName(
      "revoking a token ends its MCP session for every token and closes its open stream at once")
  void revokingEndsTheTokensSessionsAndStreams() throws Exception {
    String token = create("{\"name\":\"mcp client\",\"role\":\"MEMBER\"}").get("token").asString();
    String id = token.substring(3, 15);
    HostClient client = api.as(token);
    Answer opened = client.mcp(INITIALIZE);
    assertStatus(opened, 200);
    String session = opened.headers().firstValue("Mcp-Session-Id").orElseThrow();
    assertStatus(
        mcp(client, session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"),
        202);
    // the GET stream's headers come with its first event, so the answer is awaited apart
    CompletableFuture<Long> ended =
        HttpClient.newHttpClient()
            .sendAsync(
                client
                    .request("/mcp")
                    .timeout(Duration.ofSeconds(60))
                    .header("Accept", "text/event-stream")
                    .header("Mcp-Session-Id", session)
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofInputStream())
            .thenApply(
                response -> {
                  assertThat(response.statusCode()).isEqualTo(200);
                  try (InputStream body = response.body()) {
                    return body.transferTo(java.io.OutputStream.nullOutputStream());
                  } catch (IOException e) {
                    return -1L;
                  }
                });
    Thread.sleep(1000);
    assertThat(ended).as("the stream stays open while the token is valid").isNotDone();

    assertStatus(api.delete("/api/v1/tokens/" + id), 204);

    ended.get(5, TimeUnit.SECONDS); // the stream ended
    assertStatus(
        mcp(client, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"), 401);
    // the session is gone for any token, not only refused to the revoked one
    assertStatus(
        mcp(api, session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}"), 404);
  }

  private static Answer mcp(HostClient client, String session, String message) {
    return client.send(
        client
            .request("/mcp")
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("Mcp-Session-Id", session)
            .POST(HttpRequest.BodyPublishers.ofString(message)));
  }
}
