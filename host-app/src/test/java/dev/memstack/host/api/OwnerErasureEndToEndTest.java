package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.plugin.PluginZips;
import dev.memstack.host.security.TestTokens;
import dev.memstack.spi.Embedder;
import dev.memstack.tck.HashingEmbedder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Erase everywhere over HTTP with the real plugins: turns go through the journal outbox into the
 * builtin and vector providers, {@code DELETE /api/v1/owners/{ownerKey}/memory} erases one owner in
 * both (and queues it for the disabled mem0 instance), and afterwards that owner recalls nothing
 * while another owner still recalls their memory.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OwnerErasureEndToEndTest {

  private static final Path TEMP = temp();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http = HttpClient.newHttpClient();

  @LocalServerPort int port;

  private static Path temp() {
    try {
      return Files.createTempDirectory("memstack-erasure-test");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    Path plugins = PluginZips.copyAllTo(TEMP.resolve("plugins"));
    registry.add("memstack.plugins.dir", plugins::toString);
    registry.add("memstack.data-dir", () -> TEMP.resolve("data").toString());
    TestTokens.admin(registry);
    registry.add("memstack.models.onnx.warm-up", () -> "false");
    registry.add("memstack.stack.context.provider-timeout", () -> "5s");
    registry.add("memstack.stack.context.deadline", () -> "8s");
    registry.add("memstack.stack.system-prompt.timeout", () -> "5s");
  }

  @AfterAll
  static void cleanUp() throws InterruptedException {
    TestDirs.deleteQuietly(TEMP);
  }

  @TestConfiguration
  static class TestEmbedder {
    @Bean
    @Primary
    Embedder testEmbedder() {
      return new HashingEmbedder();
    }
  }

  @Test
  void anErasedOwnerRecallsNothingAndOtherOwnersKeepTheirMemory() {
    assertThat(turn("user:1", "e2e-1", "I keep honeybees in my garden").statusCode())
        .isEqualTo(202);
    assertThat(turn("user:2", "e2e-2", "I keep honeybees on my roof").statusCode()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> recalls("user:1", "honeybees") && recalls("user:2", "honeybees"));

    // a recall may already see a turn while its delivery is being booked
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JsonNode outbox = get("/api/v1/outbox");
              assertThat(outbox.get("type").asString()).isEqualTo("journal");
              JsonNode vector = byId(outbox.get("providers"), "vector");
              assertThat(vector.get("pending").asInt()).isZero();
              assertThat(vector.get("delivered").asLong()).isGreaterThanOrEqualTo(2);
            });

    HttpResponse<String> erased = send(request("/api/v1/owners/user:1/memory").DELETE());

    assertThat(erased.statusCode()).as(erased.body()).isEqualTo(200);
    JsonNode answer = JSON.readTree(erased.body());
    assertThat(answer.get("ownerKey").asString()).isEqualTo("user:1");
    JsonNode providers = answer.get("providers");
    assertThat(byId(providers, "builtin").get("outcome").asString()).isEqualTo("erased");
    assertThat(byId(providers, "vector").get("outcome").asString()).isEqualTo("erased");
    assertThat(byId(providers, "vector").get("removed").asLong()).isPositive();
    assertThat(byId(providers, "mem0").get("outcome").asString()).isEqualTo("queued");
    assertThat(recalls("user:1", "honeybees")).isFalse();
    assertThat(recalls("user:2", "honeybees")).isTrue();
    // the host's own conversation log keeps no trace of the erased owner either
    assertThat(answer.get("conversationTurnsRemoved").asLong()).isEqualTo(1);
    JsonNode conversation = get("/api/v1/agents/a1/conversations/c1?ownerKey=user:2");
    assertThat(conversation.get("turns")).hasSize(1);
    assertThat(conversation.get("turns").get(0).get("ownerKey").asString()).isEqualTo("user:2");
    assertThat(
            send(request("/api/v1/agents/a1/conversations/c1?ownerKey=user:1").GET()).statusCode())
        .isEqualTo(404);

    JsonNode health = get("/actuator/health").get("components").get("outbox");
    assertThat(health.get("status").asString()).isEqualTo("UP");
  }

  private boolean recalls(String owner, String word) {
    JsonNode answer =
        JSON.readTree(
            send(request("/api/v1/agents/a1/memory/context")
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"ownerKey\":\"" + owner + "\",\"query\":\"" + word + "\"}")))
                .body());
    return StreamSupport.stream(answer.get("recall").spliterator(), false)
        .anyMatch(item -> item.get("text").asString().contains(word));
  }

  private HttpResponse<String> turn(String owner, String turnId, String text) {
    return send(
        request("/api/v1/agents/a1/memory/turns")
            .header("Content-Type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"ownerKey\":\""
                        + owner
                        + "\",\"conversationId\":\"c1\",\"turnId\":\""
                        + turnId
                        + "\",\"userMessage\":\""
                        + text
                        + "\",\"assistantReply\":\"Noted.\",\"triggerSource\":\"web\"}")));
  }

  private JsonNode get(String path) {
    return JSON.readTree(send(request(path).GET()).body());
  }

  private static JsonNode byId(JsonNode array, String id) {
    return StreamSupport.stream(array.spliterator(), false)
        .filter(n -> id.equals(n.get("id").asString()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + id + " in " + array));
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", TestTokens.bearer(TestTokens.ADMIN))
        .timeout(Duration.ofSeconds(30));
  }

  private HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
