package dev.memstack.host.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.FakeOllamaServer;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The lifecycle loop through the host, on the real plugin zips and a scripted Ollama: a dream of
 * one owner makes a report whose items the owner edits and forgets through the card routes; the
 * morning card rides on the owner's first context call of the day that asks for it, and on no later
 * one; another owner's card stays empty.
 */
@HostTest
class LifecycleApiTest {

  private static final String BASE = "/api/v1/agents/a1/memory";
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String DREAM =
      "{\"should_update\": true, \"reason\": \"plans came up\","
          + " \"memory_content\": \"## Plans\\n- Billing ships Friday\\n- The budget is 40k\"}";

  @AutoClose private static final FakeOllamaServer OLLAMA = ollama();

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.allPlugins("lifecycle")
          .with("memstack.models.chat", "ollama")
          .with("memstack.models.ollama.base-url", OLLAMA::baseUrl);

  @Autowired HostClient api;

  private static FakeOllamaServer ollama() {
    try {
      FakeOllamaServer server = new FakeOllamaServer(8);
      server.answerChats(
          system -> system.contains("You consolidate the long-term memory") ? DREAM : "[]");
      return server;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private String memory(String owner) {
    Answer read =
        api.get(
            BASE.replace("/memory", "")
                + "/workspace/files/MEMORY.md?scope=personal&ownerKey="
                + owner);
    return read.status() == 200 ? read.json().get("content").asString() : "";
  }

  @Test
  void aDreamsItemsAreAnsweredThroughTheCardRoutes() {
    api.post(BASE + "/emergence", "{\"ownerKey\":\"user:1\"}").expect(200);
    String today = LocalDate.now(ZoneOffset.UTC).toString();

    JsonNode reports = api.get(BASE + "/dream/reports?ownerKey=user:1").expect(200).json();
    assertThat(reports.get("reports")).hasSize(1);
    JsonNode card =
        api.get("/api/v1/memory/a1/dream/morning-card?ownerKey=user:1&date=" + today)
            .expect(200)
            .json();
    assertThat(card.get("items"))
        .extracting(i -> i.get("text").asString())
        .containsExactly("Billing ships Friday", "The budget is 40k");
    String report = card.get("items").get(0).get("reportId").asString();

    Answer edited =
        api.post(
            BASE + "/dream/reports/" + report + "/items/0?ownerKey=user:1",
            "{\"action\":\"edit\",\"text\":\"Billing ships Monday\"}");
    assertThat(edited.status()).as(edited.body()).isEqualTo(200);
    api.post(
            BASE + "/dream/reports/" + report + "/items/1?ownerKey=user:1",
            "{\"action\":\"forget\"}")
        .expect(200);
    assertThat(memory("user:1")).contains("Billing ships Monday").doesNotContain("40k");
    assertThat(api.get(BASE + "/dream/reports?ownerKey=user:1").body()).doesNotContain("40k");

    Answer bad =
        api.post(
            BASE + "/dream/reports/" + report + "/items/0?ownerKey=user:1",
            "{\"action\":\"shred\"}");
    assertThat(bad.status()).as(bad.body()).isEqualTo(400);
    assertThat(bad.json().get("field").asString()).isEqualTo("action");
    assertThat(
            api.get(BASE + "/dream/morning-card?ownerKey=user:2&date=" + today).json().get("items"))
        .isEmpty();

    Answer focused = api.post(BASE + "/dream/focused?ownerKey=user:1", "{\"topic\":\"billing\"}");
    assertThat(focused.status()).as(focused.body()).isEqualTo(200);
    assertThat(focused.json().get("topic").asString()).isEqualTo("billing");
  }

  @Test
  void theCardRidesOnTheOwnersFirstContextCallOfTheDayOnly() {
    // a report of yesterday, as last night's dream would have written it
    Instant yesterday = Instant.now().minus(1, ChronoUnit.DAYS);
    String month = yesterday.atZone(ZoneOffset.UTC).toLocalDate().toString().substring(0, 7);
    String reports =
        "[{\"id\":\"r-1\",\"time\":\""
            + yesterday
            + "\",\"trigger\":\"scheduled\",\"scope\":\"personal\",\"owner\":\"user:3\","
            + "\"read\":\"MEMORY.md\",\"patterns\":\"tea\",\"changes\":[],\"items\":[{\"index\":0,"
            + "\"text\":\"Prefers green tea\",\"kind\":\"added\",\"status\":\"pending\"}]}]";
    String file = "# Dreaming reports\n\n## Reports\n```json\n" + reports + "\n```\n";
    Answer written =
        api.put(
            "/api/v1/agents/a1/workspace/files/dreams/" + month + ".md?ownerKey=user:3",
            JSON.writeValueAsString(java.util.Map.of("content", file, "scope", "personal")));
    assertThat(written.status()).as(written.body()).isEqualTo(200);

    String ask = "{\"ownerKey\":\"user:3\",\"query\":\"tea\",\"morningCard\":true}";
    JsonNode first = api.post(BASE + "/context", ask).expect(200).json();
    assertThat(first.get("morningCard").get("items").get(0).get("text").asString())
        .isEqualTo("Prefers green tea");
    JsonNode second = api.post(BASE + "/context", ask).expect(200).json();
    assertThat(second.has("morningCard")).isFalse();
    // without the flag, and for an owner without a card, nothing
    JsonNode other =
        api.post(
                BASE + "/context",
                "{\"ownerKey\":\"user:4\",\"query\":\"tea\",\"morningCard\":true}")
            .expect(200)
            .json();
    assertThat(other.has("morningCard")).isFalse();
    Answer noOwner = api.post(BASE + "/context", "{\"query\":\"tea\",\"morningCard\":true}");
    assertThat(noOwner.status()).as(noOwner.body()).isEqualTo(400);
    assertThat(noOwner.json().get("field").asString()).isEqualTo("ownerKey");
  }
}
