package dev.memstack.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.client.ScriptedHost.Received;
import dev.memstack.client.ScriptedHost.Reply;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The console's calls: the recall preview, and making, listing and revoking API tokens. */
class TokenCallsTest {

  static final String TOKENS = "/api/v1/tokens";

  private ScriptedHost host;
  private MemstackClient client;

  @BeforeEach
  void start() {
    host = ScriptedHost.start();
    client = MemstackClient.builder(host.url()).token("t-0123456789").agentId("a1").build();
  }

  @AfterEach
  void stop() {
    host.close();
  }

  @Test
  void previewPostsTheContextBodyToThePreviewRoute() {
    host.on(
        "POST",
        "/api/v1/agents/a1/memory/context/preview",
        Reply.json(
            200,
            """
            {"systemPrompt":"","ownerPrompt":"","context":"","providers":[],
             "recall":[{"provider":"vector","text":"I like tea","score":0.9,"scope":"personal",
              "createdAt":null,"metadata":{"id":"m1"}}]}
            """));

    ContextAnswer answer = client.preview(new ContextRequest("user:1", "c1", "tea", 0, true));

    assertThat(answer.recall()).extracting(RecallItem::text).containsExactly("I like tea");
    Received request = host.received("POST", "/api/v1/agents/a1/memory/context/preview").get(0);
    assertThat(request.body()).contains("\"ownerKey\":\"user:1\"").contains("\"explain\":true");
    assertThat(host.received("POST", "/api/v1/agents/a1/memory/context")).isEmpty();
  }

  @Test
  void createTokenSendsNameRoleAndOwnerAndHidesTheSecretFromToString() {
    host.on(
        "POST",
        TOKENS,
        Reply.json(
            201,
            """
            {"id":"abc123def456","name":"end user","role":"MEMBER","owner":"api:42",
             "createdAt":"2026-05-01T10:00:00Z","token":"ms_abc123def456_s3cret"}
            """));

    CreatedToken created = client.createToken("end user", "MEMBER", "api:42");

    assertThat(created.token()).isEqualTo("ms_abc123def456_s3cret");
    assertThat(created.createdAt()).isEqualTo(Instant.parse("2026-05-01T10:00:00Z"));
    assertThat(created.toString()).contains("abc123def456").doesNotContain("s3cret");
    assertThat(host.received("POST", TOKENS).get(0).body())
        .isEqualTo("{\"name\":\"end user\",\"role\":\"MEMBER\",\"owner\":\"api:42\"}");
    client.createToken("anyone", "VIEWER", null);
    assertThat(host.received("POST", TOKENS).get(1).body())
        .isEqualTo("{\"name\":\"anyone\",\"role\":\"VIEWER\"}");
  }

  @Test
  void listTokensReadsConfiguredAndManagedOnes() {
    host.on(
        "GET",
        TOKENS,
        Reply.json(
            200,
            """
            {"tokens":[
             {"id":"memstack.security.tokens[0]","name":"memstack.security.tokens[0]",
              "role":"ADMIN","owner":null,"source":"configuration","createdAt":null,
              "lastUsedAt":"2026-05-01T10:01:00Z"},
             {"id":"abc123def456","name":"end user","role":"MEMBER","owner":"api:42",
              "source":"api","createdAt":"2026-05-01T10:00:00Z","lastUsedAt":null}]}
            """));

    assertThat(client.listTokens())
        .containsExactly(
            new ApiToken(
                "memstack.security.tokens[0]",
                "memstack.security.tokens[0]",
                "ADMIN",
                null,
                "configuration",
                null,
                Instant.parse("2026-05-01T10:01:00Z")),
            new ApiToken(
                "abc123def456",
                "end user",
                "MEMBER",
                "api:42",
                "api",
                Instant.parse("2026-05-01T10:00:00Z"),
                null));
  }

  @Test
  void revokeTokenIsTrueThenFalseAndAConfiguredOneIs409() {
    host.on("DELETE", TOKENS + "/abc123def456", Reply.json(204, ""));
    host.on(
        "DELETE",
        TOKENS + "/gone00000000",
        Reply.json(404, "{\"error\":\"not_found\",\"message\":\"no API token gone00000000\"}"));
    host.on(
        "DELETE",
        TOKENS + "/memstack.security.tokens%5B0%5D",
        Reply.json(
            409,
            "{\"error\":\"conflict\",\"message\":\"memstack.security.tokens[0] is configured\"}"));

    assertThat(client.revokeToken("abc123def456")).isTrue();
    assertThat(client.revokeToken("gone00000000")).isFalse();
    MemstackApiException configured =
        catchThrowableOfType(
            MemstackApiException.class, () -> client.revokeToken("memstack.security.tokens[0]"));
    assertThat(configured.status()).isEqualTo(409);
    assertThat(configured.getMessage()).contains("memstack.security.tokens[0]");
  }

  @Test
  void whoamiReadsTheTokensRoleAndBinding() {
    host.on(
        "GET",
        "/api/v1/whoami",
        Reply.json(
            200,
            "{\"name\":\"end user\",\"role\":\"MEMBER\",\"owner\":\"api:42\",\"source\":\"api\"}"));

    assertThat(client.whoami()).isEqualTo(new WhoAmI("end user", "MEMBER", "api:42", "api"));
    assertThat(host.received("GET", "/api/v1/whoami").get(0).header("Authorization"))
        .isEqualTo("Bearer t-0123456789");
  }
}
