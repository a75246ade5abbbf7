package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.stream.StreamSupport;
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
 * Reloading the real builtin plugin while context calls, file writes and turns keep coming: the old
 * instance must let go of its data directory (the Lucene index's write lock above all) before the
 * new one opens it, and nothing written before or during the reload may be lost.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@DisplayName("Reloading the builtin plugin")
class BuiltinReloadTest {

  private static final Path TEMP = temp();
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String CONTEXT =
      "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"query\":\"heron\"}";

  private final HttpClient http = HttpClient.newHttpClient();

  @LocalServerPort int port;

  private static Path temp() {
    try {
      return Files.createTempDirectory("memstack-builtin-reload-test");
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
  @DisplayName("opens the new instance on the same data directory while calls keep coming")
  void reloadsUnderLoadWithoutLosingAWrite() throws Exception {
    assertThat(
            put("/api/v1/agents/r1/workspace/files/KNOWLEDGE.md", "the heron nests by the weir")
                .status())
        .isEqualTo(200);
    AtomicBoolean go = new AtomicBoolean(true);
    AtomicInteger contextCalls = new AtomicInteger();
    Queue<String> contextFailures = new ConcurrentLinkedQueue<>();
    Queue<String> written = new ConcurrentLinkedQueue<>();
    Queue<String> writeFailures = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      threads.add(
          new Thread(
              () -> {
                while (go.get()) {
                  Answer answer = post("/api/v1/agents/r1/memory/context", CONTEXT);
                  contextCalls.incrementAndGet();
                  if (answer.status() != 200) {
                    contextFailures.add(answer.status() + " " + answer.body());
                  }
                }
              }));
    }
    threads.add(
        new Thread(
            () -> {
              for (int i = 0; go.get(); i++) {
                String word = "wren" + i + "x";
                Answer answer =
                    put("/api/v1/agents/r1/workspace/files/notes/n" + i + ".md", "a " + word);
                if (answer.status() == 200) {
                  written.add(word);
                } else if (answer.status() != 503 && answer.status() != 502) {
                  // while the plugin is away the route answers 503 (not running) or 502 (closed)
                  writeFailures.add(answer.status() + " " + answer.body());
                }
              }
            }));
    threads.add(
        new Thread(
            () -> {
              for (int i = 0; go.get(); i++) {
                Answer answer =
                    post(
                        "/api/v1/agents/r1/memory/turns",
                        "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"turnId\":\"t-"
                            + i
                            + "\",\"userMessage\":\"note "
                            + i
                            + "\",\"assistantReply\":\"ok\",\"triggerSource\":\"api\"}");
                if (answer.status() != 202) {
                  writeFailures.add("turn " + answer.status() + " " + answer.body());
                }
                sleep(20);
              }
            }));
    threads.forEach(Thread::start);

    List<Answer> reloads = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      sleep(400);
      reloads.add(post("/api/v1/plugins/memstack-builtin/reload", ""));
    }
    sleep(400);
    go.set(false);
    for (Thread thread : threads) {
      thread.join(30_000);
    }

    assertThat(reloads).allSatisfy(r -> assertThat(r.status()).as(r.body()).isEqualTo(200));
    assertThat(reloads.get(2).json().get("state").asString()).isEqualTo("started");
    assertThat(contextFailures).isEmpty();
    assertThat(writeFailures).isEmpty();
    assertThat(contextCalls.get()).isGreaterThan(5);
    assertThat(written).as("writes that succeeded").isNotEmpty();

    Answer after = post("/api/v1/agents/r1/memory/context", CONTEXT);
    JsonNode builtin =
        StreamSupport.stream(after.json().get("providers").spliterator(), false)
            .filter(p -> p.get("id").asString().equals("builtin"))
            .findFirst()
            .orElseThrow();
    assertThat(builtin.get("status").asString()).isEqualTo("ok");
    assertThat(after.json().get("systemPrompt").asString()).contains("--- AGENTS.md ---");
    assertThat(search("heron")).as("a word written before the reloads").isEqualTo(1);
    for (String word : written) {
      assertThat(search(word)).as("%s, written while reloading", word).isEqualTo(1);
    }
    assertThat(put("/api/v1/agents/r1/workspace/files/after.md", "the kestrel").status())
        .isEqualTo(200);
    assertThat(search("kestrel")).isEqualTo(1);
  }

  // ---------------------------------------------------------------- helpers

  private record Answer(int status, JsonNode json, String body) {}

  private int search(String word) {
    Answer answer = post("/api/v1/agents/r1/workspace/search", "{\"query\":\"" + word + "\"}");
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

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
