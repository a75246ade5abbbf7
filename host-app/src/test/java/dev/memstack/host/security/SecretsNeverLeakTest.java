package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Secrets in configuration (the Mem0 API key, a database password, the API tokens) appear in no
 * answer and nowhere in the log, from start-up through failing calls: Mem0 points at a port where
 * nothing listens, so its recalls, turn deliveries, tool calls and health checks all fail.
 */
@ExtendWith(OutputCaptureExtension.class)
@HostTest
class SecretsNeverLeakTest {

  @Autowired HostClient api;

  private static final String MEM0_KEY = "m0-secret-api-key-7f3a9c0e";
  private static final String DB_PASSWORD = "pg-secret-password-51d2e8";
  private static final String USER_1 = "user-secret-token-0b7e13f2";
  private static final List<String> SECRETS =
      List.of(MEM0_KEY, DB_PASSWORD, TestTokens.ADMIN, USER_1);

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.create("secrets")
          .withAllPlugins()
          .disabled("builtin", "vector")
          .with("memstack.providers.vector.config.store", "pgvector")
          .with("memstack.providers.vector.config.password", DB_PASSWORD)
          .with("memstack.providers.mem0.enabled", "true")
          .with("memstack.providers.mem0.config.base-url", "http://127.0.0.1:" + closedPort())
          .with("memstack.providers.mem0.config.api-key", MEM0_KEY)
          .with("memstack.providers.mem0.config.sync-retries", "1")
          .with("memstack.providers.mem0.config.sync-retry-backoff-ms", "10")
          .with("memstack.stack.sync.initial-backoff", "50ms")
          .tokens(
              new String[] {TestTokens.ADMIN, "admin", null},
              new String[] {USER_1, "member", "api:1"});

  private static int closedPort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private Answer send(String method, String path, String token, String body) {
    HostClient client = api.as(token);
    return client.send(
        client
            .request(path)
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body)));
  }

  @Test
  void noSecretAppearsInAnswersOrInTheLog(CapturedOutput output) {
    List<Answer> answers = new ArrayList<>();
    Answer providers = send("GET", "/api/v1/providers", TestTokens.ADMIN, null);
    answers.add(providers);
    answers.add(
        send(
            "POST",
            "/api/v1/agents/a1/memory/context",
            USER_1,
            "{\"ownerKey\":\"api:1\",\"query\":\"what do I like?\"}"));
    answers.add(
        send(
            "POST",
            "/api/v1/agents/a1/memory/turns",
            USER_1,
            "{\"ownerKey\":\"api:1\",\"conversationId\":\"c1\",\"userMessage\":\"I like tea\","
                + "\"assistantReply\":\"Noted.\",\"triggerSource\":\"api\"}"));
    answers.add(
        send(
            "POST",
            "/api/v1/agents/a1/tools/mem0/mem0_add",
            USER_1,
            "{\"ownerKey\":\"api:1\",\"text\":\"I like tea\"}"));
    answers.add(
        send(
            "POST",
            "/api/v1/agents/a1/memory/context",
            USER_1,
            "{\"ownerKey\":\"api:2\",\"query\":\"q\"}"));
    // a secret sent as a token is refused without being echoed or logged
    answers.add(send("GET", "/api/v1/plugins", MEM0_KEY, null));
    answers.add(send("GET", "/api/v1/providers", USER_1, null));
    answers.add(send("POST", "/api/v1/agents/a1/memory/turns", TestTokens.ADMIN, "{\"ownerKey\":"));
    answers.add(send("POST", "/api/v1/plugins/memstack-mem0/reload", TestTokens.ADMIN, null));
    answers.add(send("GET", "/actuator/health", TestTokens.ADMIN, null));
    answers.add(send("GET", "/actuator/health", null, null));
    answers.add(send("GET", "/actuator/metrics/memstack.provider.calls", TestTokens.ADMIN, null));
    // a failed delivery of the turn to mem0 has happened (and been logged) once this metric exists
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                send(
                            "GET",
                            "/actuator/metrics/memstack.provider.calls"
                                + "?tag=provider:mem0&tag=hook:syncTurn&tag=outcome:error",
                            TestTokens.ADMIN,
                            null)
                        .status()
                    == 200);

    assertThat(providers.status()).isEqualTo(200);
    assertThat(providers.body()).contains("\"mem0\"").contains("\"vector\"");
    assertThat(answers.get(3).status()).as(answers.get(3).body()).isGreaterThanOrEqualTo(500);
    assertThat(answers.get(4).status()).isEqualTo(403);
    assertThat(answers.get(5).status()).isEqualTo(401);
    assertThat(answers.get(6).status()).isEqualTo(403);
    assertThat(answers.get(8).status()).as(answers.get(8).body()).isEqualTo(200);
    for (Answer answer : answers) {
      for (String secret : SECRETS) {
        assertThat(answer.body()).as(answer.uri() + " answer").doesNotContain(secret);
        assertThat(answer.headers().map().toString()).doesNotContain(secret);
      }
    }
    for (String secret : SECRETS) {
      assertThat(output.getAll()).as("the log").doesNotContain(secret);
    }
  }
}
