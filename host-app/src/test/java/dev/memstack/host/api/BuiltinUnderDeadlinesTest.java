package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.plugin.PluginZips;
import dev.memstack.host.security.TestTokens;
import dev.memstack.spi.Embedder;
import dev.memstack.tck.HashingEmbedder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The real builtin plugin under deadlines so short that the stack interrupts nearly every call it
 * makes (system prompt blocks that seed new agents, recall): an interrupt that lands in a file
 * write must not break the provider's keyword index for the calls that follow.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@DisplayName("The builtin plugin under the stack's deadlines")
class BuiltinUnderDeadlinesTest {

  private static final Path TEMP = temp();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http = HttpClient.newHttpClient();

  @LocalServerPort int port;

  private static Path temp() {
    try {
      return Files.createTempDirectory("memstack-builtin-deadline-test");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    Path plugins = TEMP.resolve("plugins");
    try {
      Files.createDirectories(plugins);
      Path zip = PluginZips.zip("builtin");
      Files.copy(zip, plugins.resolve(zip.getFileName()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    registry.add("memstack.plugins.dir", plugins::toString);
    registry.add("memstack.data-dir", () -> TEMP.resolve("data").toString());
    registry.add("memstack.providers.vector.enabled", () -> "false");
    registry.add("memstack.providers.mem0.enabled", () -> "false");
    TestTokens.admin(registry);
    registry.add("memstack.models.onnx.warm-up", () -> "false");
    // every builtin call the stack makes is late and interrupted
    registry.add("memstack.stack.context.provider-timeout", () -> "1ms");
    registry.add("memstack.stack.context.deadline", () -> "30ms");
    registry.add("memstack.stack.system-prompt.timeout", () -> "1ms");
    registry.add("memstack.stack.context.max-late-calls-per-provider", () -> "16");
    registry.add("memstack.stack.breaker.failure-threshold", () -> "1000000");
    registry.add("memstack.providers.builtin.config.index-commit-interval", () -> "0s");
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
  @DisplayName("keeps the keyword index working after many interrupted calls")
  void keepsTheIndexWorkingAfterInterruptedCalls() throws Exception {
    AtomicBoolean go = new AtomicBoolean(true);
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger timeouts = new AtomicInteger();
    Queue<String> failures = new ConcurrentLinkedQueue<>();
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      int caller = t;
      callers.add(
          new Thread(
              () -> {
                for (int i = 0; go.get(); i++) {
                  // a new agent each time: its system prompt block seeds four files
                  Answer answer =
                      post(
                          "/api/v1/agents/d" + caller + "-" + i + "/memory/context",
                          "{\"ownerKey\":\"user:1\",\"query\":\"heron\"}");
                  calls.incrementAndGet();
                  if (answer.status() != 200) {
                    failures.add(answer.status() + " " + answer.body());
                  } else if (answer.body().contains("\"timeout\"")) {
                    timeouts.incrementAndGet();
                  }
                }
              }));
    }
    callers.forEach(Thread::start);
    Thread.sleep(3000);
    go.set(false);
    for (Thread caller : callers) {
      caller.join(30_000);
    }
    // let the calls the stack gave up on run out
    Thread.sleep(1000);

    assertThat(failures).isEmpty();
    assertThat(timeouts.get()).as("context calls whose builtin call was cut off").isPositive();
    Answer write = put("/api/v1/agents/d0-0/workspace/files/KNOWLEDGE.md", "the bittern booms");
    assertThat(write.status()).as(write.body()).isEqualTo(200);
    assertThat(search("d0-0", "bittern", null)).as("a word written after the interrupts").isOne();
    Answer turn =
        post(
            "/api/v1/agents/d0-0/memory/turns",
            "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"userMessage\":\"the"
                + " curlew calls\",\"assistantReply\":\"ok\",\"triggerSource\":\"api\"}");
    assertThat(turn.status()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(() -> assertThat(search("d0-0", "curlew", "user:1")).isOne());
  }

  // ---------------------------------------------------------------- helpers

  private record Answer(int status, JsonNode json, String body) {}

  private int search(String agent, String word, String owner) {
    String body =
        owner == null
            ? "{\"query\":\"" + word + "\"}"
            : "{\"query\":\"" + word + "\",\"ownerKey\":\"" + owner + "\"}";
    Answer answer = post("/api/v1/agents/" + agent + "/workspace/search", body);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json().get("count").asInt();
  }

  private Answer put(String path, String content) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .PUT(
                HttpRequest.BodyPublishers.ofString(
                    JSON.writeValueAsString(java.util.Map.of("content", content)))));
  }

  private Answer post(String path, String json) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", TestTokens.bearer(TestTokens.ADMIN))
        .timeout(Duration.ofSeconds(60));
  }

  private Answer send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      JsonNode json = response.body().isEmpty() ? null : JSON.readTree(response.body());
      return new Answer(response.statusCode(), json, response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
