package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.outbox.OutboxSettings;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The learned ranking stage inside a context call. */
class StackLearnedRankingTest {

  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey OWNER = OwnerKey.of("user:1");

  /** Ranks down short items and up items that share the question's words. */
  private static final String MODEL =
      """
      {"format": "memstack-ranking/1", "name": "words", "embeddingModel": "two-d",
       "features": ["short", "overlap"], "mean": [0, 0], "scale": [1, 1],
       "weights": [-2.0, 3.0], "bias": 0.0}
      """;

  @AutoClose private final StackHarness harness = new StackHarness();
  @TempDir Path dir;
  private final List<Integer> asked = new CopyOnWriteArrayList<>();

  private MemoryStack stack(String model, int candidates) throws IOException {
    harness.members.embedder = new StackRelevanceTest.TwoDimensions();
    Path file = Files.writeString(dir.resolve("model.json"), MODEL);
    StackProperties properties =
        StackPropertiesBuilder.defaults()
            .ranking(
                new StackProperties.Ranking(
                    model == null ? file.toString() : model, candidates, 1.0))
            .build();
    FakeProvider provider = new FakeProvider("p");
    provider.recall =
        request -> {
          asked.add(request.limit());
          List<RecallItem> items = new java.util.ArrayList<>();
          items.add(provider.item("lol", 0.9));
          items.add(provider.item("we talked about other things entirely", 0.8));
          for (int i = 0; i < 20; i++) {
            items.add(provider.item("filler number " + i + " with nothing in common", 0.5));
          }
          items.add(provider.item("the bakery on Main Street sells the best bread", 0.1));
          return Recall.of(items);
        };
    harness.members.add(provider);
    return harness.start(
        properties, OutboxSettings.defaults(), new SystemPromptCache(), Clock.systemUTC());
  }

  @Test
  @DisplayName("the model orders the wide candidate list: the last item of 23 comes first")
  void modelOrders() throws IOException {
    MemoryStack stack = stack(null, 50);

    ContextAnswer answer =
        stack.context(
            new ContextQuery(AGENT, OWNER, null, "which bakery sells the best bread?", 3, true));

    assertThat(answer.recall().get(0).text()).startsWith("the bakery");
    assertThat(answer.recall()).extracting(RecalledMemory::text).doesNotContain("lol");
    assertThat(asked).as("each provider is asked for the candidate width").containsExactly(50);
    RecalledMemory first = answer.recall().get(0);
    assertThat(first.metadata())
        .containsEntry(MemoryStack.RANKING, "learned:words")
        .containsKey(MemoryStack.LEARNED)
        .containsEntry(MemoryStack.FEATURE + "short", "0.0000 +0.0000");
    String overlap = first.metadata().get(MemoryStack.FEATURE + "overlap");
    double value = Double.parseDouble(overlap.split(" ")[0]);
    assertThat(Double.parseDouble(overlap.split(" ")[1])).isEqualTo(3.0 * value);
    assertThat(stack.rankingStatus())
        .containsEntry("mode", "learned")
        .containsEntry("model", "words");
  }

  @Test
  @DisplayName("with model none the fusion ranks, the providers are asked as before")
  void noneIsTheFusion() throws IOException {
    MemoryStack stack = stack("none", 50);

    ContextAnswer answer =
        stack.context(
            new ContextQuery(AGENT, OWNER, null, "which bakery sells the best bread?", 3, true));

    assertThat(answer.recall().get(0).text()).isEqualTo("lol");
    assertThat(asked).containsExactly(3 * 3);
    assertThat(answer.recall().get(0).metadata()).containsEntry(MemoryStack.RANKING, "fusion");
    assertThat(stack.rankingStatus())
        .containsEntry("mode", "fusion")
        .containsEntry("reason", "memstack.stack.ranking.model=none");
  }

  @Test
  @DisplayName("a model of another embedding model is not used, and health and explain say so")
  void otherEmbeddingModel() throws IOException {
    Path other = Files.writeString(dir.resolve("other.json"), MODEL.replace("two-d", "e5"));
    MemoryStack stack = stack(other.toString(), 50);

    ContextAnswer answer = stack.context(new ContextQuery(AGENT, OWNER, null, "bread?", 3, true));

    assertThat(answer.recall().get(0).metadata()).containsEntry(MemoryStack.RANKING, "fusion");
    assertThat(stack.rankingStatus().get("reason")).contains("'e5'").contains("'two-d'");
  }
}
