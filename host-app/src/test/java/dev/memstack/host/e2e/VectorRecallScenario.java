package dev.memstack.host.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.TestHost;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 4's "done when", run on one vector store per subclass: with the default embedding model
 * (E5-small-v2 in process) the host recalls a synced turn by meaning for its owner and nobody else,
 * still does after a restart on the same data folder, and forgets it when the owner is erased.
 */
abstract class VectorRecallScenario {

  static final String AGENT = "a1";
  static final String BISCUIT = "I adopted a retired greyhound named Biscuit last spring";
  static final String QUESTION = "what kind of dog do I have?";
  static final String TOM = "My cat Tom sleeps on the piano all afternoon";

  private TestHost host;

  /** Keys of {@code memstack.providers.vector.config.*} that choose and connect the store. */
  protected abstract Map<String, String> storeConfig();

  /** Records the store holds for {@code owner}, checked in the store itself; -1 when unknown. */
  protected long storedRecords(String owner) {
    return -1;
  }

  @AfterEach
  void stopHost() {}

  @Test
  void aSyncedTurnIsRecalledByMeaningForItsOwnerOnlyAcrossARestartUntilTheOwnerIsErased() {
    // the stack's deadlines are not this test's subject; a busy machine makes first calls slow
    host =
        TestHost.create(getClass().getSimpleName())
            .with("memstack.stack.context.provider-timeout", "5s")
            .with("memstack.stack.context.deadline", "8s")
            .with("memstack.stack.system-prompt.timeout", "5s");
    storeConfig()
        .forEach((key, value) -> host.with("memstack.providers.vector.config." + key, value));
    host.start();
    Timings timings = new Timings(getClass().getSimpleName());
    timings.mark("first start", host.lastStart());
    HostClient api = host.client();
    awaitUp(api, timings, "model warm after first start");
    JsonNode models = api.get("/actuator/health").json().get("components").get("models");
    assertThat(models.get("details").get("embeddingModel").asString())
        .as("the default embedding model, in process")
        .isEqualTo("e5-small-v2");

    Answer biscuit = api.turn(AGENT, "user:1", "e2e-biscuit", BISCUIT, "What a lovely name!");
    Answer tom = api.turn(AGENT, "user:2", "e2e-tom", TOM, "Cats know the warm spots.");
    assertThat(biscuit.status()).as(biscuit.toString()).isEqualTo(202);
    assertThat(biscuit.json().get("turnId").asString()).isEqualTo("e2e-biscuit");
    assertThat(tom.status()).as(tom.toString()).isEqualTo(202);
    long delivering = System.nanoTime();
    api.awaitBacklog(
        "both turns delivered to vector",
        "vector",
        Duration.ofSeconds(60),
        vector -> {
          assertThat(vector.get("pending").asInt()).as(vector.toString()).isZero();
          assertThat(vector.get("delivered").asLong())
              .as(vector.toString())
              .isGreaterThanOrEqualTo(2);
        });
    timings.mark("delivery of two turns to vector", since(delivering));
    if (storedRecords("user:1") >= 0) {
      assertThat(storedRecords("user:1")).as("records of user:1 in the store").isPositive();
    }

    Answer recalled = awaitVectorRecall(api, "user:1", "Biscuit");
    timings.mark("context call user:1", recalled.took());
    JsonNode first = recalled.recallOf("vector").get(0);
    assertThat(first.get("text").asString())
        .as("the best vector item answers the question by meaning")
        .contains("Biscuit")
        .contains("greyhound");
    assertThat(first.get("scope").asString()).isEqualTo("personal");
    assertThat(first.get("score").asDouble()).isPositive();
    assertThat(recalled.statusOf("vector")).isEqualTo("ok");
    assertThat(recalled.json().get("context").asString()).contains("Biscuit");
    List<JsonNode> stackRecall = new java.util.ArrayList<>();
    recalled.json().get("recall").forEach(stackRecall::add);
    assertThat(stackRecall.get(0).get("text").asString())
        .as("the stack's first item is the Biscuit memory: " + recalled)
        .contains("Biscuit");
    assertThat(texts(stackRecall))
        .as("no template line and no line of a file the system prompt carries")
        .noneMatch(t -> t.contains(".md (line") || t.contains("## Identity"));
    assertThat(stackRecall)
        .allSatisfy(item -> assertThat(item.get("score").asDouble()).isBetween(0.0, 1.0));

    Answer other = api.context(AGENT, "user:2", QUESTION);
    timings.mark("context call user:2", other.took());
    assertThat(other.status()).as(other.toString()).isEqualTo(200);
    assertThat(other.statusOf("vector")).isEqualTo("ok");
    assertThat(other.body()).as("nothing of user:1 reaches user:2").doesNotContain("Biscuit");
    assertThat(texts(other.recallOf("vector")))
        .as(other.toString())
        .anyMatch(t -> t.contains("Tom"));

    host.restart();
    timings.mark("restart", host.lastStart());
    awaitUp(api, timings, "model warm after restart");
    Answer afterRestart = api.context(AGENT, "user:1", QUESTION);
    timings.mark("first context call after restart", afterRestart.took());
    assertThat(afterRestart.status()).as(afterRestart.toString()).isEqualTo(200);
    assertThat(afterRestart.statusOf("vector")).as(afterRestart.toString()).isEqualTo("ok");
    assertThat(afterRestart.recallOf("vector").get(0).get("text").asString())
        .as(afterRestart.toString())
        .contains("Biscuit");

    Answer erased = api.delete("/api/v1/owners/user:1/memory");
    timings.mark("erase user:1", erased.took());
    assertThat(erased.status()).as(erased.toString()).isEqualTo(200);
    JsonNode vectorErasure = byId(erased.json().get("providers"), "vector");
    assertThat(vectorErasure.get("outcome").asString()).isEqualTo("erased");
    assertThat(vectorErasure.get("removed").asLong()).isPositive();
    if (storedRecords("user:1") >= 0) {
      assertThat(storedRecords("user:1")).as("records of user:1 in the store").isZero();
    }
    Answer forgotten = api.context(AGENT, "user:1", QUESTION).expect(200);
    assertThat(forgotten.statusOf("vector")).isEqualTo("ok");
    assertThat(forgotten.body()).as("user:1 after erasure").doesNotContain("Biscuit");
    Answer kept = api.context(AGENT, "user:2", QUESTION);
    assertThat(texts(kept.recallOf("vector"))).as(kept.toString()).anyMatch(t -> t.contains("Tom"));
    timings.print();
  }

  private static Answer awaitVectorRecall(HostClient api, String owner, String word) {
    Answer[] last = new Answer[1];
    await(owner + " recalls " + word + " from vector")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              last[0] = api.context(AGENT, owner, QUESTION);
              assertThat(last[0].status()).as(last[0].toString()).isEqualTo(200);
              assertThat(texts(last[0].recallOf("vector")))
                  .as(last[0].toString())
                  .anyMatch(text -> text.contains(word));
            });
    return last[0];
  }

  private static void awaitUp(HostClient api, Timings timings, String what) {
    long start = System.nanoTime();
    await("health UP")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(api::up);
    timings.mark(what, since(start));
  }

  static List<String> texts(List<JsonNode> items) {
    return items.stream().map(item -> item.get("text").asString()).toList();
  }

  static JsonNode byId(JsonNode array, String id) {
    for (JsonNode element : array) {
      if (id.equals(element.get("id").asString())) {
        return element;
      }
    }
    throw new AssertionError("no " + id + " in " + array);
  }

  static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }
}
