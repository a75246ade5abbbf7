package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.testing.FakeOllamaServer;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Memory that maintains itself, end to end: the real plugin zips, {@code memstack.models.chat=
 * ollama} on a scripted Ollama that answers the extraction prompt with a profile naming the user's
 * favourite language and the dreaming prompt with a new MEMORY.md. Two turns of {@code user:1}
 * reach {@code user:1}'s PROFILE.md and nobody else's; a manual emergence replaces MEMORY.md and
 * journals a dated DREAMS.md entry the status endpoint shows; the conversation log answers the
 * turns.
 */
@HostTest
class MemoryJobsApiTest {

  @Autowired HostClient api;

  static final String EXTRACTION =
      "```json\n{\"should_update\": true, \"reason\": \"the user named a favourite language\","
          + " \"daily_entry\": \"- Said Kotlin is their favourite language.\","
          + " \"memory_update\": \"\", \"profile_update\": \"# Profile\\n\\n## Preferences\\n-"
          + " Favourite language: Kotlin\"}\n```";
  static final String EMERGENCE =
      "Here you go:\n{\"should_update\": true, \"reason\": \"Kotlin keeps coming up\","
          + " \"memory_content\": \"# Memory\\n\\n## Stable patterns\\n- The team works in"
          + " Kotlin\"}";
  @AutoClose private static final FakeOllamaServer OLLAMA = ollama();

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.allPlugins("memory-jobs")
          .with("memstack.models.chat", "ollama")
          .with("memstack.models.ollama.base-url", OLLAMA::baseUrl);

  private static FakeOllamaServer ollama() {
    try {
      FakeOllamaServer server = new FakeOllamaServer(8);
      server.answerChats(
          system ->
              system.contains("You maintain the long-term memory")
                  ? EXTRACTION
                  : system.contains("You consolidate the long-term memory") ? EMERGENCE : "[]");
      return server;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private String personalFile(String owner, String file) {
    Answer read =
        api.post(
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
        api.post(
                "/api/v1/agents/a1/tools/builtin/read_workspace_memory_file",
                "{\"filename\":\"" + file + "\",\"scope\":\"team\"}")
            .expect(200);
    return read.json().get("content").asString();
  }

  private void turn(String owner, String conversation, String user) {
    Answer accepted =
        api.post(
                "/api/v1/agents/a1/memory/turns",
                "{\"ownerKey\":\""
                    + owner
                    + "\",\"conversationId\":\""
                    + conversation
                    + "\",\"userMessage\":\""
                    + user
                    + "\",\"assistantReply\":\"Good to know.\",\"triggerSource\":\"web\"}")
            .expect(202);
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

    Answer conversation = api.get("/api/v1/agents/a1/conversations/c1?ownerKey=user:1");
    assertThat(conversation.status()).as(conversation.body()).isEqualTo(200);
    assertThat(conversation.json().get("count").asInt()).isEqualTo(2);
    assertThat(conversation.json().get("turns").get(1).get("userMessage").asString())
        .contains("Kotlin");
    assertThat(api.get("/api/v1/agents/a1/conversations/nope?ownerKey=user:1").status())
        .isEqualTo(404);
    assertThat(api.get("/api/v1/agents/a1/conversations/c1?ownerKey=user:2").status())
        .isEqualTo(404);
    Answer unnamed = api.get("/api/v1/agents/a1/conversations/c1").expect(400);
    assertThat(unnamed.json().get("field").asString()).isEqualTo("ownerKey");

    Answer summarize = api.post("/api/v1/memory/a1/summarize/c1?ownerKey=user:1", "");
    assertThat(summarize.status()).as(summarize.body()).isEqualTo(200);
    assertThat(summarize.json().get("status").asString()).isIn("updated", "skipped");

    Answer emergence = api.post("/api/v1/memory/a1/emergence", "{}").expect(200);
    assertThat(emergence.json().get("status").asString()).isEqualTo("completed");
    assertThat(teamFile("MEMORY.md")).contains("The team works in Kotlin");
    assertThat(teamFile("DREAMS.md"))
        .containsPattern("## \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} · team · manual");

    Answer status = api.get("/api/v1/memory/a1/dreaming/status").expect(200);
    assertThat(status.json().get("newestEntry").asString())
        .containsPattern("## \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} · team · manual")
        .contains("Kotlin keeps coming up");
    assertThat(status.json().get("lastRun").get("trigger").asString()).isEqualTo("manual");
    assertThat(status.json().get("nextRun").asString()).isNotBlank();
  }

  @Test
  void summarizeNeedsAnOwner() {
    Answer answer = api.post("/api/v1/memory/a1/summarize/c1", "{}");

    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.json().get("field").asString()).isEqualTo("ownerKey");
  }
}
