package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.outbox.OutboxSettings;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Recall;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code explain}: every provider's rank behind an item's fused score ({@link MemoryStack#RANKS}).
 */
class StackExplainRanksTest {

  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey OWNER = OwnerKey.of("user:1");

  @AutoClose private final StackHarness harness = new StackHarness();

  private MemoryStack stack() {
    return harness.start(
        StackProperties.defaults(),
        OutboxSettings.defaults(),
        new SystemPromptCache(),
        Clock.systemUTC());
  }

  @Test
  @DisplayName("an item found by two providers names both ranks; one found by one names one")
  void namesEveryProvidersRank() {
    FakeProvider keyword = new FakeProvider("keyword");
    keyword.recall =
        request ->
            Recall.of(
                List.of(
                    keyword.item("only the keyword list has this", 0.9),
                    keyword.item("notes: the user lives in Lyon", 0.5)));
    FakeProvider dense = new FakeProvider("dense");
    dense.recall = request -> Recall.of(List.of(dense.item("the user lives in Lyon", 0.8)));
    harness.members.add(keyword);
    harness.members.add(dense);
    MemoryStack stack = stack();

    ContextAnswer answer = stack.context(new ContextQuery(AGENT, OWNER, null, "q", 0, true));

    RecalledMemory lyon =
        answer.recall().stream().filter(i -> i.text().contains("Lyon")).findFirst().orElseThrow();
    // dense's copy is first in its list and adds most; the shorter copy (dense's) is shown
    assertThat(lyon.metadata()).containsEntry(MemoryStack.RANKS, "dense:1,keyword:2");
    assertThat(lyon.metadata()).containsEntry(MemoryStack.RANK, "1");
    assertThat(lyon.metadata()).containsEntry(MemoryStack.DUPLICATES, "keyword");
    RecalledMemory alone =
        answer.recall().stream().filter(i -> i.text().startsWith("only")).findFirst().orElseThrow();
    assertThat(alone.metadata()).containsEntry(MemoryStack.RANKS, "keyword:1");
  }

  @Test
  @DisplayName("without explain no rank travels")
  void plainCallsCarryNoRanks() {
    FakeProvider one = new FakeProvider("one");
    one.recall = request -> Recall.of(List.of(one.item("a memory", 0.9)));
    harness.members.add(one);
    MemoryStack stack = stack();

    ContextAnswer answer = stack.context(new ContextQuery(AGENT, OWNER, null, "q", 0, false));

    assertThat(answer.recall().get(0).metadata()).doesNotContainKey(MemoryStack.RANKS);
  }
}
