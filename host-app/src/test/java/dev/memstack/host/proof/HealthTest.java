package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.TestHost;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Health semantics (the reproduction of issue 15, item 7): an optional provider that cannot be
 * reached (mem0 pointed at a dead port) leaves {@code /actuator/health} at 200 with the overall
 * status {@code DEGRADED} and that provider's own entry {@code DOWN}, and readiness stays 200, so a
 * load balancer keeps a host that serves every other provider. The host is {@code DOWN} (503) only
 * when it cannot serve: here its turn journal is full, so it cannot take a turn.
 */
class HealthTest {

  @Test
  void aDeadOptionalProviderDegradesTheHostButLeavesItUpAndReady() {
    try (TestHost host = withDeadMem0("health-degraded").start()) {
      HostClient api = host.client();

      await("mem0 reported down")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(300))
          .untilAsserted(
              () -> {
                Answer health = api.get("/actuator/health").expect(200);
                assertThat(health.json().get("status").asString()).isEqualTo("DEGRADED");
                JsonNode providers = health.json().get("components").get("providers");
                assertThat(providers.get("status").asString()).isEqualTo("DEGRADED");
                JsonNode mem0 = providers.get("details").get("mem0");
                assertThat(mem0.get("status").asString()).isEqualTo("DOWN");
                assertThat(mem0.get("details").get("detail").asString()).isNotBlank();
                assertThat(providers.get("details").get("builtin").get("status").asString())
                    .isEqualTo("UP");
                assertThat(health.json().get("components").get("outbox").get("status").asString())
                    .isNotEqualTo("DOWN");
              });
      Answer readiness = api.get("/actuator/health/readiness").expect(200);
      assertThat(readiness.json().get("status").asString()).isEqualTo("UP");
      assertThat(readiness.json().get("components").has("providers")).isFalse();
      // without a token: the status alone, still 200
      HttpResponse<String> open = anonymous(host.port(), "/actuator/health");
      assertThat(open.statusCode()).isEqualTo(200);
      assertThat(open.body()).contains("DEGRADED").doesNotContain("mem0");
      // and the host serves: a context call answers, a turn is accepted
      assertThat(api.context("health-agent", "user:1", "anything", 5).status()).isEqualTo(200);
      assertThat(api.turn("health-agent", "user:1", "h-1", "hello", "hi").status()).isEqualTo(202);
    }
  }

  @Test
  void theHostIsDownOnlyWhenItCannotTakeTurns() {
    try (TestHost host =
        withDeadMem0("health-down")
            .with("memstack.outbox.segment-size", "4KB")
            .with("memstack.outbox.max-journal-size", "8KB")
            .start()) {
      HostClient api = host.client();
      assertThat(api.get("/actuator/health").status()).isEqualTo(200);

      // mem0 never takes its turns, so they fill the journal until it refuses one
      int refused = 0;
      for (int i = 0; i < 200 && refused == 0; i++) {
        Answer turn = api.turn("health-agent", "user:1", "fill-" + i, "turn " + i, "ok");
        if (turn.status() == 503) {
          refused++;
        } else {
          assertThat(turn.status()).as(turn.toString()).isEqualTo(202);
        }
      }
      assertThat(refused).isEqualTo(1);

      Answer health = api.get("/actuator/health").expect(503);
      assertThat(health.json().get("status").asString()).isEqualTo("DOWN");
      JsonNode outbox = health.json().get("components").get("outbox");
      assertThat(outbox.get("status").asString()).isEqualTo("DOWN");
      assertThat(outbox.get("details").get("refusing").asString()).contains("full");
      Answer readiness = api.get("/actuator/health/readiness").expect(503);
    }
  }

  private static TestHost withDeadMem0(String name) {
    return TestHost.withTestEmbedder(name)
        .with("memstack.providers.vector.enabled", "false")
        .with("memstack.providers.mem0.enabled", "true")
        .with("memstack.providers.mem0.config.base-url", "http://127.0.0.1:" + deadPort())
        .with("memstack.providers.mem0.config.timeout-ms", "500")
        .with("memstack.api.health-timeout", "2s");
  }

  /** A local port nothing listens on: bound once to find it free, then closed. */
  private static int deadPort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static HttpResponse<String> anonymous(int port, String path) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
