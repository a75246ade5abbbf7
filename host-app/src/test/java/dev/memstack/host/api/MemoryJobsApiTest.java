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
 * Memory that maintains itself, end to end: the real plugin zips, {@code memstack.models.chat=
 * ollama} on a scripted Ollama that answers the extraction prompt with a profile naming the user's
 * favourite language and the dreaming prompt with a new MEMORY.md. Two turns of {@code user:1}
 * reach {@code user:1}'s PROFILE.md and nobody else's; a manual emergence replaces MEMORY.md and
 * journals a dated DREAMS.md entry the status endpoint shows; the conversation log answers the
 * turns.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class MemoryJobsApiTest {

  private static final Path TEMP = temp();
  private static final JsonMapper JSON = JsonMapper.builder().build();
  static final String EXTRACTION =
      "```json\n{\"should_update\": true, \"reason\": \"the user named a favourite language\","
          + " \"daily_entry\": \"- Said Kotlin is their favourite language.\","
          + " \"memory_update\": \"\", \"profile_update\": \"# Profile\\n\\n## Preferences\\n-"
          + " Favourite language: Kotlin\"}\n```";
  static final String EMERGENCE =
      "Here you go:\n{\"should_update\": true, \"reason\": \"Kotlin keeps coming up\","
          + " \"memory_content\": \"# Memory\\n\\n## Stable patterns\\n- The team works in"
          + " Kotlin\"}";
  private static final ScriptedOllama OLLAMA = ollama();

  private final HttpClient http = HttpClient.newHttpClient();

  @LocalServerPort int port;

  private static Path temp() {
    try {
      return Files.createTempDirectory("memstack-memory-jobs-test");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ScriptedOllama ollama() {
    try {
      return new ScriptedOllama(
          system ->
              system.contains("You maintain the long-term memory")
                  ? EXTRACTION
                  : system.contains("You consolidate the long-term memory") ? EMERGENCE : "[]");
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
    registry.add("memstack.models.chat", () -> "ollama");
    registry.add("memstack.models.ollama.base-url", OLLAMA::baseUrl);
    registry.add("memstack.stack.context.provider-timeout", () -> "5s");
    registry.add("memstack.stack.context.deadline", () -> "8s");
    registry.add("memstack.stack.system-prompt.timeout", () -> "5s");
  }

  @AfterAll
  static void cleanUp() throws InterruptedException {
    OLLAMA.close();
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

  record Answer(int status, JsonNode json, String body) {}

  Answer send(HttpRequest.Builder request) {
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

  HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", TestTokens.bearer(TestTokens.ADMIN))
        .timeout(Duration.ofSeconds(30));
  }

  Answer post(String path, String body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  Answer get(String path) {
    return send(request(path).GET());
  }

  private String personalFile(String owner, String file) {
    Answer read =
        post(
            "/api/v1/agents/a1/tools/builtin/read_workspace_memory_file",
            "{\"ownerKey\":\""
                + owner
                + "\",\"filename\":\""
                + file
                + "\",\"scope\":\"personal\"}");
    if (read.status() == 404) {
      return "";
    }
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    return read.json().get("content").asString();
  }

  private String teamFile(String file) {
    Answer read =
        post(
            "/api/v1/agents/a1/tools/builtin/read_workspace_memory_file",
            "{\"filename\":\"" + file + "\",\"scope\":\"team\"}");
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    return read.json().get("content").asString();
  }

  private void turn(String owner, String conversation, String user) {
    Answer accepted =
        post(
            "/api/v1/agents/a1/memory/turns",
            "{\"ownerKey\":\""
                + owner
                + "\",\"conversationId\":\""
                + conversation
                + "\",\"userMessage\":\""
                + user
                + "\",\"assistantReply\":\"Good to know.\",\"triggerSource\":\"web\"}");
    assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
  }

  @Test
  void extractionDreamingAndTheConversationLogWorkEndToEnd() {
    turn("user:1", "c1", "Hello, I am planning a new backend service");
    turn("user:1", "c1", "My favourite language is Kotlin, by the way");
    turn("user:2", "c2", "Hello there");

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(personalFile("user:1", "PROFILE.md")).contains("Kotlin"));
    assertThat(personalFile("user:2", "PROFILE.md")).doesNotContain("Kotlin");
    assertThat(teamFile("PROFILE.md")).doesNotContain("Kotlin");

    Answer conversation = get("/api/v1/agents/a1/conversations/c1?ownerKey=user:1");
    assertThat(conversation.status()).as(conversation.body()).isEqualTo(200);
    assertThat(conversation.json().get("count").asInt()).isEqualTo(2);
    assertThat(conversation.json().get("turns").get(1).get("userMessage").asString())
        .contains("Kotlin");
    assertThat(get("/api/v1/agents/a1/conversations/nope?ownerKey=user:1").status()).isEqualTo(404);
    assertThat(get("/api/v1/agents/a1/conversations/c1?ownerKey=user:2").status()).isEqualTo(404);
    Answer unnamed = get("/api/v1/agents/a1/conversations/c1");
    assertThat(unnamed.status()).as(unnamed.body()).isEqualTo(400);
    assertThat(unnamed.json().get("field").asString()).isEqualTo("ownerKey");

    Answer summarize = post("/api/v1/memory/a1/summarize/c1?ownerKey=user:1", "");
    assertThat(summarize.status()).as(summarize.body()).isEqualTo(200);
    assertThat(summarize.json().get("status").asString()).isIn("updated", "skipped");

    Answer emergence = post("/api/v1/memory/a1/emergence", "{}");
    assertThat(emergence.status()).as(emergence.body()).isEqualTo(200);
    assertThat(emergence.json().get("status").asString()).isEqualTo("completed");
    assertThat(teamFile("MEMORY.md")).contains("The team works in Kotlin");
    assertThat(teamFile("DREAMS.md"))
        .containsPattern("## \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} · team · manual");

    Answer status = get("/api/v1/memory/a1/dreaming/status");
    assertThat(status.status()).as(status.body()).isEqualTo(200);
    assertThat(status.json().get("newestEntry").asString())
        .containsPattern("## \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} · team · manual")
        .contains("Kotlin keeps coming up");
    assertThat(status.json().get("lastRun").get("trigger").asString()).isEqualTo("manual");
    assertThat(status.json().get("nextRun").asString()).isNotBlank();
  }

  @Test
  void summarizeNeedsAnOwner() {
    Answer answer = post("/api/v1/memory/a1/summarize/c1", "{}");

    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.json().get("field").asString()).isEqualTo("ownerKey");
  }
}
