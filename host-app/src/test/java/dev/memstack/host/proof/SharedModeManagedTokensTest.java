package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.SharedTestDatabase;
import dev.memstack.host.testing.TestHost;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Managed API tokens on two real hosts in shared mode on one database ({@code MEMSTACK_PG_URL}): a
 * token made on one host is accepted by the other, its use there shows in the list, and once it is
 * revoked on host A, host B refuses it within a second and ends the MCP stream it had open there.
 */
class SharedModeManagedTokensTest {

  private static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
          + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

  private static SharedTestDatabase database;
  private static TestHost hostA;
  private static TestHost hostB;

  @BeforeAll
  static void startTwoHosts() {
    database = SharedTestDatabase.create();
    hostA = shared("tokens-a").start();
    hostB = shared("tokens-b").start();
  }

  private static TestHost shared(String name) {
    SharedProperties properties = database.properties();
    TestHost host =
        TestHost.withTestEmbedder(name)
            .with("memstack.shared.jdbc-url", properties.jdbcUrl())
            .with("memstack.providers.vector.config.schema", database.schema());
    if (properties.username() != null) {
      host.with("memstack.shared.username", properties.username());
    }
    if (properties.password() != null) {
      host.with("memstack.shared.password", properties.password());
    }
    return host;
  }

  @AfterAll
  static void stop() {
    for (TestHost host : new TestHost[] {hostA, hostB}) {
      if (host != null) {
        host.close();
      }
    }
    if (database != null) {
      database.drop();
    }
  }

  private static JsonNode create(HostClient on, String name) {
    Answer created = on.post("/api/v1/tokens", "{\"name\":\"" + name + "\",\"role\":\"MEMBER\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json();
  }

  private static JsonNode listed(HostClient on, String id) {
    for (JsonNode token : on.get("/api/v1/tokens").expect(200).json().get("tokens")) {
      if (id.equals(token.get("id").asString())) {
        return token;
      }
    }
    return null;
  }

  @Test
  @DisplayName(
      "a token made on host A works on host B, and once revoked on A, B refuses it within a second")
  void aTokenRevokedOnOneHostIsRefusedByTheOther() {
    HostClient a = hostA.client();
    HostClient b = hostB.client();
    JsonNode created = create(a, "roaming");
    String id = created.get("id").asString();
    HostClient onB = b.as(created.get("token").asString());

    Answer whoami = onB.get("/api/v1/whoami");
    assertThat(whoami.status()).as(whoami.body()).isEqualTo(200);
    assertThat(whoami.json().get("source").asString()).isEqualTo("api");
    assertThat(listed(a, id).get("lastUsedAt").isNull()).as("host b's use, seen on a").isFalse();
    assertThat(listed(b, id).get("createdAt").asString())
        .isEqualTo(created.get("createdAt").asString());

    a.delete("/api/v1/tokens/" + id).expect(204);
    long revokedAt = System.nanoTime();
    await("host b refuses the revoked token")
        .atMost(Duration.ofSeconds(3))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> onB.get("/api/v1/whoami").status() == 401);
    assertThat(Duration.ofNanos(System.nanoTime() - revokedAt))
        .isLessThan(Duration.ofMillis(1_500));
    assertThat(listed(b, id)).isNull();
    b.delete("/api/v1/tokens/" + id).expect(404);
    Answer configured = b.delete("/api/v1/tokens/memstack.security.tokens%5B0%5D");
    assertThat(configured.status()).isEqualTo(409);
    assertThat(configured.body()).contains("memstack.security.tokens[0]");
  }

  @Test
  @DisplayName("a revocation on host A ends the MCP stream the token holds open on host B")
  void aRevocationOnOneHostEndsTheStreamOnTheOther() throws Exception {
    JsonNode created = create(hostA.client(), "streaming");
    HostClient onB = hostB.client().as(created.get("token").asString());
    Answer opened = onB.mcp(INITIALIZE);
    assertThat(opened.status()).as(opened.body()).isEqualTo(200);
    String session = opened.headers().firstValue("Mcp-Session-Id").orElseThrow();
    CompletableFuture<Long> ended =
        HttpClient.newHttpClient()
            .sendAsync(
                onB.request("/mcp")
                    .timeout(Duration.ofSeconds(60))
                    .header("Accept", "text/event-stream")
                    .header("Mcp-Session-Id", session)
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofInputStream())
            .thenApply(
                response -> {
                  try (InputStream body = response.body()) {
                    return body.transferTo(OutputStream.nullOutputStream());
                  } catch (IOException e) {
                    return -1L;
                  }
                });
    Thread.sleep(1000);
    assertThat(ended).as("open while the token is valid").isNotDone();

    Instant revoked = Instant.now();
    hostA.client().delete("/api/v1/tokens/" + created.get("id").asString()).expect(204);

    ended.get(5, TimeUnit.SECONDS);
    assertThat(Duration.between(revoked, Instant.now())).isLessThan(Duration.ofSeconds(3));
  }
}
