package dev.memstack.host.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.FakeOllamaServer;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The structured-consolidation route on the real plugin zips and a scripted Ollama: without a
 * {@code provider} parameter it runs on builtin (which claims LIFECYCLE) and on vector (which
 * serves the tool alone, over its typed memories), answering the sums and each provider's answer;
 * with one, that provider's answer. Another owner's memories stay as they were.
 */
@HostTest
class ConsolidationAcrossProvidersApiTest {

  private static final String BASE = "/api/v1/agents/a1";
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String MERGED = "The user keeps a cello, a dog and a garden in Porto";
  private static final String[] NINE = {
    "I play the cello on Sundays",
    "My dog is called Biscuit",
    "I was born in Porto",
    "My sister lives in Oslo",
    "I grow tomatoes in my garden",
    "I drink my coffee black",
    "My bike has a green frame",
    "I read crime novels at night",
    "I work at a shipyard"
  };

  @AutoClose private static final FakeOllamaServer OLLAMA = ollama();

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.allPlugins("consolidation-across")
          .with("memstack.models.chat", "ollama")
          .with("memstack.models.ollama.base-url", OLLAMA::baseUrl);

  @Autowired HostClient api;

  private static FakeOllamaServer ollama() {
    try {
      FakeOllamaServer server = new FakeOllamaServer(8);
      server.answerChats(
          system ->
              system.contains("You tidy one person's long-term memory")
                  ? "{\"reason\": \"one line is enough\", \"merged\": [\"nine into one\"],"
                      + " \"entries\": [{\"from\": [0, 1, 2, 3, 4, 5, 6, 7, 8], \"text\": \""
                      + MERGED
                      + "\"}]}"
                  : "[]");
      return server;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private void remember(String owner, String text) {
    api.post(
            BASE + "/tools/vector/remember",
            JSON.writeValueAsString(Map.of("ownerKey", owner, "text", text, "type", "FACT")))
        .expect(200);
  }

  private List<String> facts(String owner, String status) {
    JsonNode listed =
        api.post(
                BASE + "/tools/vector/list_memories",
                JSON.writeValueAsString(
                    Map.of("ownerKey", owner, "type", "FACT", "status", status, "limit", 50)))
            .expect(200)
            .json();
    List<String> texts = new ArrayList<>();
    listed.get("items").forEach(item -> texts.add(item.get("text").asString()));
    return texts;
  }

  @Test
  void withoutAProviderTheRouteRunsOnEveryProviderThatServesItAndSumsThem() {
    for (String text : NINE) {
      remember("user:1", text);
      remember("user:2", text);
    }

    Answer answer = api.post("/api/v1/memory/a1/structured-consolidation?ownerKey=user:1", "{}");

    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    JsonNode json = answer.json();
    assertThat(json.get("status").asString()).isEqualTo("completed");
    assertThat(json.get("ownerKey").asString()).isEqualTo("user:1");
    JsonNode providers = json.get("providers");
    assertThat(providers)
        .extracting(p -> p.get("provider").asString())
        .containsExactly("builtin", "vector");
    JsonNode vector = providers.get(1);
    assertThat(vector.get("updated").asInt()).isOne();
    assertThat(vector.get("entriesBefore").asInt()).isEqualTo(9);
    assertThat(vector.get("entriesAfter").asInt()).isOne();
    JsonNode builtin = providers.get(0);
    for (String count : List.of("ownersConsolidated", "updated", "entriesBefore", "entriesAfter")) {
      assertThat(json.get(count).asInt())
          .as(count)
          .isEqualTo(builtin.get(count).asInt() + vector.get(count).asInt());
    }
    assertThat(json.get("buckets"))
        .filteredOn(b -> b.get("provider").asString().equals("vector"))
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.get("type").asString()).isEqualTo("FACT");
              assertThat(b.get("status").asString()).isEqualTo("updated");
            });

    assertThat(facts("user:1", "active")).containsExactly(MERGED);
    assertThat(facts("user:1", "archived")).containsExactlyInAnyOrder(NINE);
    assertThat(facts("user:2", "active")).containsExactlyInAnyOrder(NINE);

    Answer one = api.post(BASE + "/memory/structured-consolidation?provider=vector", "{}");
    assertThat(one.status()).as(one.body()).isEqualTo(200);
    assertThat(one.json().has("providers")).isFalse();
    assertThat(one.json().get("ownersConsolidated").asInt()).as("user:2, up to 50").isOne();
    assertThat(facts("user:2", "active")).containsExactly(MERGED);

    Answer unknown = api.post(BASE + "/memory/structured-consolidation?provider=nope", "{}");
    assertThat(unknown.status()).as(unknown.body()).isEqualTo(404);
    assertThat(unknown.json().get("message").asString()).contains("run_structured_consolidation");
  }
}
