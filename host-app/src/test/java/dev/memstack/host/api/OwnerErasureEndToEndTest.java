package dev.memstack.host.api;

import static dev.memstack.host.testing.HostClient.JSON;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.time.Duration;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Erase everywhere over HTTP with the real plugins: turns go through the journal outbox into the
 * builtin and vector providers, {@code DELETE /api/v1/owners/{ownerKey}/memory} erases one owner in
 * both (and queues it for the disabled mem0 instance), and afterwards that owner recalls nothing
 * while another owner still recalls their memory.
 */
@HostTest
class OwnerErasureEndToEndTest {

  @RegisterExtension static final HostFolder HOST = HostFolder.allPlugins("erasure");

  @Autowired HostClient api;

  @Test
  void anErasedOwnerRecallsNothingAndOtherOwnersKeepTheirMemory() {
    assertThat(turn("user:1", "e2e-1", "I keep honeybees in my garden").status()).isEqualTo(202);
    assertThat(turn("user:2", "e2e-2", "I keep honeybees on my roof").status()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> recalls("user:1", "honeybees") && recalls("user:2", "honeybees"));

    // a recall may already see a turn while its delivery is being booked
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JsonNode outbox = json("/api/v1/outbox");
              assertThat(outbox.get("type").asString()).isEqualTo("journal");
              JsonNode vector = byId(outbox.get("providers"), "vector");
              assertThat(vector.get("pending").asInt()).isZero();
              assertThat(vector.get("delivered").asLong()).isGreaterThanOrEqualTo(2);
            });

    Answer erased = api.send(api.request("/api/v1/owners/user:1/memory").DELETE()).expect(200);
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
    JsonNode conversation = json("/api/v1/agents/a1/conversations/c1?ownerKey=user:2");
    assertThat(conversation.get("turns")).hasSize(1);
    assertThat(conversation.get("turns").get(0).get("ownerKey").asString()).isEqualTo("user:2");
    assertThat(
            api.send(api.request("/api/v1/agents/a1/conversations/c1?ownerKey=user:1").GET())
                .status())
        .isEqualTo(404);

    JsonNode health = json("/actuator/health").get("components").get("outbox");
    assertThat(health.get("status").asString()).isEqualTo("UP");
  }

  private boolean recalls(String owner, String word) {
    JsonNode answer =
        JSON.readTree(
            api.post(
                    "/api/v1/agents/a1/memory/context",
                    "{\"ownerKey\":\"" + owner + "\",\"query\":\"" + word + "\"}")
                .body());
    return StreamSupport.stream(answer.get("recall").spliterator(), false)
        .anyMatch(item -> item.get("text").asString().contains(word));
  }

  private Answer turn(String owner, String turnId, String text) {
    return api.post(
        "/api/v1/agents/a1/memory/turns",
        "{\"ownerKey\":\""
            + owner
            + "\",\"conversationId\":\"c1\",\"turnId\":\""
            + turnId
            + "\",\"userMessage\":\""
            + text
            + "\",\"assistantReply\":\"Noted.\",\"triggerSource\":\"web\"}");
  }

  private JsonNode json(String path) {
    return api.get(path).json();
  }

  private static JsonNode byId(JsonNode array, String id) {
    return StreamSupport.stream(array.spliterator(), false)
        .filter(n -> id.equals(n.get("id").asString()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + id + " in " + array));
  }
}
