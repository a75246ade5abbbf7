package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.memstack.host.coordination.ProviderCoordination;
import dev.memstack.host.lifecycle.LifecycleProperties;
import dev.memstack.host.security.TestTokens;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The recall preview ({@code POST .../memory/context/preview}) on the host with the real plugins:
 * it answers as the context call does and changes nothing — a memory's weight, trust and feedback
 * count stay as they were after 100 previews, no turn is stored, the morning card's day is not
 * claimed — and it follows the context call's role and owner rules.
 */
@HostTest
class RecallPreviewApiTest {

  private static final String AGENT = "preview-agent";
  private static final String OWNER = "user:preview";
  private static final String BOUND = "test-preview-bound-token-0123456789abcdef";
  private static final String PREVIEW = "/api/v1/agents/" + AGENT + "/memory/context/preview";
  private static final String CONTEXT = "/api/v1/agents/" + AGENT + "/memory/context";

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.allPlugins("recall-preview")
          .addToken(TestTokens.VIEWER, "viewer", null)
          .addToken(BOUND, "member", "user:someone-else");

  @Autowired HostClient client;
  @Autowired ProviderCoordination coordination;
  @Autowired LifecycleProperties lifecycle;

  private String remember(String text) {
    Answer stored =
        client.post(
            "/api/v1/agents/" + AGENT + "/tools/vector/remember",
            "{\"ownerKey\":\"" + OWNER + "\",\"text\":\"" + text + "\"}");
    assertThat(stored.status()).as(stored.body()).isEqualTo(200);
    return stored.json().get("id").asString();
  }

  private static String body(String query) {
    return "{\"ownerKey\":\""
        + OWNER
        + "\",\"query\":\""
        + query
        + "\",\"explain\":true,\"conversationId\":\"c1\",\"window\":true,\"morningCard\":true}";
  }

  /** The items without their scores: text, provider, scope, time and every signal, in order. */
  private static List<JsonNode> withoutScores(List<JsonNode> items) {
    return items.stream()
        .map(
            item -> {
              ObjectNode copy = (ObjectNode) item.deepCopy();
              copy.remove("score");
              return (JsonNode) copy;
            })
        .toList();
  }

  private static JsonNode vectorItem(Answer answer, String id) {
    return answer.recallOf("vector").stream()
        .filter(item -> id.equals(item.path("metadata").path("id").asString()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no vector item " + id + " in " + answer));
  }

  /** What a memory's state shows: its weight and update time, its feedback count and trust. */
  private List<String> state(String id, String query) {
    JsonNode item =
        client
            .get("/api/v1/agents/" + AGENT + "/memory/items/" + id + "?ownerKey=" + OWNER)
            .expect(200)
            .json();
    JsonNode signals =
        vectorItem(client.post(CONTEXT, body(query)).expect(200), id).path("metadata");
    return List.of(
        item.path("weight").asString(),
        item.path("updatedAt").asString(),
        item.path("status").asString(),
        signals.path("signal.feedback").asString(),
        signals.path("signal.trust").asString(),
        signals.path("signal.weight").asString());
  }

  @Test
  @DisplayName(
      "100 previews leave weight, trust and feedback as they were, store no turn and claim no card;"
          + " a preview answers as the context call right after it")
  void previewsChangeNothingAndAnswerAsTheContextCall() {
    String query = "what is my locker code at the gym";
    String used = remember("My gym locker code is 4711");
    remember("The gym locker room was painted green last spring");
    remember("I keep a spare key in the garden shed");
    client
        .post(
            "/api/v1/agents/" + AGENT + "/memory/feedback",
            "{\"ownerKey\":\""
                + OWNER
                + "\",\"used\":[{\"provider\":\"vector\",\"id\":\""
                + used
                + "\"}]}")
        .expect(200);
    List<String> before = state(used, query);
    assertThat(before.get(3)).as("one confirmation").isEqualTo("1");
    assertThat(Double.parseDouble(before.get(4))).as("trust raised by it").isPositive();

    for (int i = 0; i < 100; i++) {
      client.post(PREVIEW, body(query)).expect(200);
    }

    assertThat(state(used, query)).isEqualTo(before);
    assertThat(
            client
                .get("/api/v1/agents/" + AGENT + "/conversations?ownerKey=" + OWNER)
                .expect(200)
                .json()
                .path("conversations"))
        .as("no turn stored")
        .isEmpty();
    Answer preview = client.post(PREVIEW, body(query)).expect(200);
    Answer context = client.post(CONTEXT, body(query)).expect(200);
    assertThat(withoutScores(preview.recall()))
        .isNotEmpty()
        .isEqualTo(withoutScores(context.recall()));
    for (int i = 0; i < preview.recall().size(); i++) {
      // a recency factor moves with the clock in the milliseconds between the two calls
      assertThat(preview.recall().get(i).get("score").asDouble())
          .isCloseTo(context.recall().get(i).get("score").asDouble(), within(1e-6));
    }
    assertThat(preview.json().get("context")).isEqualTo(context.json().get("context"));
    assertThat(preview.json().get("systemPrompt")).isEqualTo(context.json().get("systemPrompt"));
    assertThat(preview.json().get("ownerPrompt")).isEqualTo(context.json().get("ownerPrompt"));
    assertThat(preview.json().get("window").get("messages"))
        .isEqualTo(context.json().get("window").get("messages"));
    assertThat(vectorItem(preview, used)).isNotNull();
    // every preview above asked for the morning card, and the day is still unclaimed; the
    // context calls above claimed it for their owner
    LocalDate today = LocalDate.now(lifecycle.zoneId());
    assertThat(
            coordination
                .of("lifecycle")
                .claimRun("morning-card:" + AGENT + ":" + OWNER, today.toString()))
        .as("the context calls claimed the day")
        .isFalse();
    String previewOnly = "user:preview-only";
    for (int i = 0; i < 3; i++) {
      client
          .post(
              PREVIEW,
              "{\"ownerKey\":\"" + previewOnly + "\",\"query\":\"key\",\"morningCard\":true}")
          .expect(200);
    }
    assertThat(
            coordination
                .of("lifecycle")
                .claimRun("morning-card:" + AGENT + ":" + previewOnly, today.toString()))
        .as("previews claim no day")
        .isTrue();
  }

  @Test
  @DisplayName("the preview needs viewer and an owner the token covers, as the context call")
  void thePreviewFollowsTheContextCallsRules() {
    String body = "{\"ownerKey\":\"" + OWNER + "\",\"query\":\"locker\"}";
    assertThat(client.as(TestTokens.VIEWER).post(PREVIEW, body).status()).isEqualTo(200);
    Answer other = client.as(BOUND).post(PREVIEW, body);
    assertThat(other.status()).as(other.body()).isEqualTo(403);
    assertThat(client.as(null).post(PREVIEW, body).status()).isEqualTo(401);
    Answer unknown =
        client.post(PREVIEW, "{\"ownerKey\":\"" + OWNER + "\",\"query\":\"x\",\"q\":1}");
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.json().get("field").asString()).isEqualTo("q");
  }
}
