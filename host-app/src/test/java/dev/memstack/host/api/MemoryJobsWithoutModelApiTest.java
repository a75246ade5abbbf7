package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;

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
 * Without a chat model (the default) the memory-job endpoints answer {@code 409 no chat model
 * configured} while turns and context calls work as before.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class MemoryJobsWithoutModelApiTest {

  private static final Path TEMP = temp();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http = HttpClient.newHttpClient();

  @LocalServerPort int port;

  private static Path temp() {
    try {
      return Files.createTempDirectory("memstack-memory-jobs-none-test");
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

  private record Answer(int status, JsonNode json, String body) {}

  private Answer send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      JsonNode json = response.body().isEmpty() ? null : JSON.readTree(response.body());
      return new Answer(response.statusCode(), json, response.body());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", TestTokens.bearer(TestTokens.ADMIN))
        .timeout(Duration.ofSeconds(30));
  }

  private Answer post(String path, String body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private static void assertNoModel(Answer answer) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(409);
    assertThat(answer.json().get("error").asString()).isEqualTo("conflict");
    assertThat(answer.json().get("message").asString()).isEqualTo("no chat model configured");
  }

  @Test
  void theMemoryJobEndpointsAnswerConflictAndContextCallsStillWork() {
    Answer turn =
        post(
            "/api/v1/agents/a1/memory/turns",
            "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"userMessage\":\"My favourite"
                + " language is Kotlin\",\"assistantReply\":\"Noted.\",\"triggerSource\":\"web\"}");
    assertThat(turn.status()).isEqualTo(202);

    assertNoModel(post("/api/v1/memory/a1/summarize/c1", "{\"ownerKey\":\"user:1\"}"));
    assertNoModel(post("/api/v1/memory/a1/emergence", "{}"));
    assertNoModel(send(request("/api/v1/memory/a1/dreaming/status").GET()));

    Answer context =
        post(
            "/api/v1/agents/a1/memory/context",
            "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"query\":\"favourite language\"}");
    assertThat(context.status()).as(context.body()).isEqualTo(200);
    assertThat(context.json().get("systemPrompt").asString()).contains("AGENTS.md");
  }
}
