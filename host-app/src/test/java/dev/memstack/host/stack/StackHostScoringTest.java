package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.outbox.OutboxSettings;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallVector;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The host's own relevance list ({@code memstack.stack.fusion.relevance-weight}): every provider's
 * candidates ranked by their cosine to the query, fused beside the providers' ranks.
 */
class StackHostScoringTest {

  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey OWNER = OwnerKey.of("user:1");

  @AutoClose private final StackHarness harness = new StackHarness();
  private final StackRelevanceTest.TwoDimensions model = new StackRelevanceTest.TwoDimensions();

  private MemoryStack stack(double relevanceWeight) {
    harness.members.embedder = model;
    StackProperties properties =
        StackPropertiesBuilder.defaults()
            .fusion(new StackProperties.Fusion(20, Map.of(), 3, relevanceWeight, 1, 8))
            .build();
    return harness.start(
        properties, OutboxSettings.defaults(), new SystemPromptCache(), Clock.systemUTC());
  }

  /** Two providers of equal weight; "close" is second in its list but points the query's way. */
  private final java.util.List<Boolean> askedForVectors =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  private void twoProviders() {
    FakeProvider left = new FakeProvider("left");
    left.recall =
        request -> {
          askedForVectors.add(request.vectors());
          return Recall.of(
              List.of(
                  carrying(left.item("far from the question", 0.9), 0f, 1f),
                  carrying(left.item("close to the question", 0.8), 1f, 0.1f)));
        };
    FakeProvider right = new FakeProvider("right");
    right.recall =
        request -> Recall.of(List.of(carrying(right.item("also far away", 0.9), 0.1f, 1f)));
    harness.members.add(left);
    harness.members.add(right);
  }

  private static RecallItem carrying(RecallItem item, float... vector) {
    return item.withVector(new RecallVector("two-d", vector));
  }

  private static List<String> texts(ContextAnswer answer) {
    return answer.recall().stream().map(RecalledMemory::text).toList();
  }

  @Test
  @DisplayName("the calling thread embeds the query while the providers run, and only once")
  void theQueryIsEmbeddedWhileTheProvidersRun() throws Exception {
    java.util.concurrent.CountDownLatch made = new java.util.concurrent.CountDownLatch(1);
    model.onQuery = made::countDown;
    FakeProvider waiting = new FakeProvider("waiting");
    // as a provider that searches by keywords first and then asks for the query's vector
    waiting.recall =
        request -> {
          boolean meanwhile;
          try {
            meanwhile = made.await(5, java.util.concurrent.TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            meanwhile = false;
          }
          return Recall.of(
              List.of(
                  carrying(waiting.item(meanwhile ? "made meanwhile" : "in vain", 0.9), 1f, 0f)));
        };
    harness.members.add(waiting);
    MemoryStack stack = stack(2);

    long start = System.nanoTime();
    ContextAnswer answer = stack.context(new ContextQuery(AGENT, OWNER, null, "q", 3, true));

    assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(4_000);
    assertThat(texts(answer)).containsExactly("made meanwhile");
    assertThat(model.queryThreads).containsExactly(Thread.currentThread().getName());
  }

  @Test
  @DisplayName("with a relevance weight, the item nearest the query rises above first-ranked ones")
  void relevanceReorders() {
    twoProviders();

    ContextAnswer answer = stack(2).context(new ContextQuery(AGENT, OWNER, null, "q", 3, true));

    assertThat(texts(answer).get(0)).isEqualTo("close to the question");
    RecalledMemory close = answer.recall().get(0);
    assertThat(close.metadata()).containsEntry(MemoryStack.RELEVANCE_RANK, "1");
    assertThat(Double.parseDouble(close.metadata().get(MemoryStack.RELEVANCE))).isGreaterThan(0.99);
    assertThat(model.embedded).as("attached vectors need no embedding").isEmpty();
    assertThat(askedForVectors).containsExactly(true);
  }

  @Test
  @DisplayName("with weight 0 (and no learned model) the providers' ranks alone decide")
  void weightZeroIsRanksAlone() {
    twoProviders();
    MemoryStack stack = stack(0);

    ContextAnswer answer = stack.context(new ContextQuery(AGENT, OWNER, null, "q", 3, false));

    assertThat(texts(answer).get(2)).isEqualTo("close to the question");
    assertThat(model.queries).as("nothing is embedded").isZero();
    assertThat(askedForVectors).as("no provider reads vectors for nothing").containsExactly(false);

    // explain shows the cosine (a ranking feature) without letting it reorder
    ContextAnswer explained = stack.context(new ContextQuery(AGENT, OWNER, null, "q", 3, true));
    assertThat(texts(explained)).isEqualTo(texts(answer));
    assertThat(explained.recall().get(2).metadata())
        .containsKey(MemoryStack.RELEVANCE)
        .containsEntry(MemoryStack.RANKING, "fusion");
  }
}
