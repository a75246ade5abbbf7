package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.outbox.OutboxSettings;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.Scope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trust stage: one bounded adjustment after the ranking score, learned or fusion. */
class StackTrustRankingTest {

  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey OWNER = OwnerKey.of("user:1");

  /** Ranks up items that share the question's words. */
  private static final String MODEL =
      """
      {"format": "memstack-ranking/1", "name": "words", "embeddingModel": "two-d",
       "features": ["overlap"], "mean": [0], "scale": [1], "weights": [3.0], "bias": 0.0}
      """;

  @AutoClose private final StackHarness harness = new StackHarness();
  @TempDir Path dir;

  /** A provider answering 20 items, "item 1" first, with the given trust by item number. */
  private MemoryStack stack(String model, double trustWeight, Map<Integer, String> trust)
      throws IOException {
    harness.members.embedder = new StackRelevanceTest.TwoDimensions();
    Path file = Files.writeString(dir.resolve("model.json"), MODEL);
    StackProperties properties =
        StackPropertiesBuilder.defaults()
            .ranking(
                new StackProperties.Ranking(
                    model == null ? file.toString() : model, 30, trustWeight))
            .build();
    FakeProvider provider = new FakeProvider("p");
    List<RecallItem> items = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      Map<String, String> metadata = new java.util.HashMap<>();
      metadata.put(MemoryStack.ITEM_ID, "id-" + i);
      if (trust.containsKey(i)) {
        metadata.put(MemoryStack.TRUST_SIGNAL, trust.get(i));
      }
      String text = i == 1 ? "the bakery on Main Street sells bread" : "item number " + i;
      items.add(provider.item(text, 1.0 - i * 0.01, Scope.TEAM, null, null, metadata));
    }
    provider.recall = request -> Recall.of(items);
    harness.members.add(provider);
    return harness.start(
        properties, OutboxSettings.defaults(), new SystemPromptCache(), Clock.systemUTC());
  }

  private static List<String> ids(ContextAnswer answer) {
    return answer.recall().stream().map(m -> m.metadata().get(MemoryStack.ITEM_ID)).toList();
  }

  private static ContextAnswer ask(MemoryStack stack, String query, boolean explain) {
    return stack.context(new ContextQuery(AGENT, OWNER, null, query, 20, explain));
  }

  @Test
  @DisplayName("without trust nothing moves, and explain shows a trust and adjustment of 0")
  void withoutTrustNothingMoves() throws IOException {
    MemoryStack stack = stack("none", 1.0, Map.of());

    ContextAnswer answer = ask(stack, "what sells bread?", true);

    assertThat(ids(answer)).startsWith("id-1", "id-2", "id-3").hasSize(20);
    assertThat(answer.recall())
        .allSatisfy(
            m ->
                assertThat(m.metadata())
                    .containsEntry(MemoryStack.TRUST, "0.0000")
                    .containsEntry(MemoryStack.TRUST_ADJUSTMENT, "0.0000"));
  }

  @Test
  @DisplayName("fusion: a distrusted item falls below the relevant one after it")
  void aDistrustedItemFallsBelowTheNextOne() throws IOException {
    MemoryStack stack = stack("none", 1.0, Map.of(1, "-0.7616"));

    ContextAnswer answer = ask(stack, "what sells bread?", true);

    assertThat(ids(answer)).startsWith("id-2", "id-1", "id-3");
    Map<String, String> first = answer.recall().get(1).metadata();
    assertThat(first).containsEntry(MemoryStack.TRUST, "-0.7616");
    assertThat(Double.parseDouble(first.get(MemoryStack.TRUST_ADJUSTMENT))).isNegative();
    assertThat(answer.recall().get(0).metadata())
        .containsEntry(MemoryStack.TRUST_ADJUSTMENT, "0.0000");
  }

  @Test
  @DisplayName("fusion: a fully trusted last item rises at most one standard deviation")
  void aTrustedItemCannotJumpFar() throws IOException {
    MemoryStack stack = stack("none", 1.0, Map.of(20, "1.0000", 19, "7", 18, "not a number"));

    ContextAnswer answer = ask(stack, "what sells bread?", true);

    // 1/(k+20) + σ of the 20 fused scores (k = 10) lands about 10th, far below the first few
    // (id-19, lifted as much, stays just ahead of it)
    assertThat(ids(answer).indexOf("id-19")).isEqualTo(9);
    assertThat(ids(answer).indexOf("id-20")).isEqualTo(10);
    assertThat(ids(answer)).startsWith("id-1", "id-2", "id-3", "id-4", "id-5");
    assertThat(answer.recall().get(10).metadata()).containsEntry(MemoryStack.TRUST, "1.0000");
    // a value above 1 counts as 1, one that is not a number as none
    assertThat(
            answer.recall().stream()
                .filter(m -> m.metadata().get(MemoryStack.ITEM_ID).equals("id-19"))
                .findFirst()
                .orElseThrow()
                .metadata())
        .containsEntry(MemoryStack.TRUST, "1.0000");
    assertThat(
            answer.recall().stream()
                .filter(m -> m.metadata().get(MemoryStack.ITEM_ID).equals("id-18"))
                .findFirst()
                .orElseThrow()
                .metadata())
        .containsEntry(MemoryStack.TRUST, "0.0000");
  }

  @Test
  @DisplayName("a trust weight of 0 turns the stage off")
  void zeroTurnsItOff() throws IOException {
    MemoryStack stack = stack("none", 0, Map.of(1, "-1"));

    assertThat(ids(ask(stack, "what sells bread?", false))).startsWith("id-1", "id-2");
  }

  @Test
  @DisplayName("learned: the adjustment follows the learned score, and trust is no feature")
  void learnedScoreIsAdjusted() throws IOException {
    MemoryStack stack = stack(null, 1.0, Map.of(1, "-1.0000", 2, "0.5000"));

    ContextAnswer answer = ask(stack, "which bakery sells bread?", true);

    Map<String, String> bakery =
        answer.recall().stream()
            .filter(m -> m.metadata().get(MemoryStack.ITEM_ID).equals("id-1"))
            .findFirst()
            .orElseThrow()
            .metadata();
    assertThat(bakery).containsEntry(MemoryStack.RANKING, "learned:words");
    // far ahead by its words, it stays first: the adjustment is bounded by one σ
    assertThat(ids(answer).get(0)).isEqualTo("id-1");
    assertThat(Double.parseDouble(bakery.get(MemoryStack.TRUST_ADJUSTMENT))).isNegative();
    // ties of the learned score are ordered by trust
    assertThat(ids(answer).get(1)).isEqualTo("id-2");
    assertThat(answer.recall())
        .allSatisfy(
            m ->
                assertThat(m.metadata().keySet())
                    .noneMatch(
                        k -> k.endsWith("signal.trust") && k.startsWith(MemoryStack.FEATURE)));
  }

  @Test
  @DisplayName("a model that names the trust signal as a feature is refused")
  void aModelWithTheTrustSignalIsRefused() {
    assertThat(RankingFeatures.known("signal:vector:signal.trust")).isFalse();
    assertThat(RankingFeatures.known("signal:vector:signal.fused")).isTrue();
    assertThatThrownBy(
            () ->
                RankingModel.read(
                    new java.io.ByteArrayInputStream(
                        MODEL
                            .replace("\"overlap\"", "\"signal:vector:signal.trust\"")
                            .getBytes(java.nio.charset.StandardCharsets.UTF_8))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("signal:vector:signal.trust");
  }

  @Test
  @DisplayName("trust-weight out of 0..5 stops the host, naming the key")
  void trustWeightIsChecked() {
    assertThatThrownBy(() -> new StackProperties.Ranking("", 30, 6))
        .hasMessageContaining("memstack.stack.ranking.trust-weight");
    assertThatThrownBy(() -> new StackProperties.Ranking("", 30, -0.1))
        .hasMessageContaining("memstack.stack.ranking.trust-weight");
  }
}
