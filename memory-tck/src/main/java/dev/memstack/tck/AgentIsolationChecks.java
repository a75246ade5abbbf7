package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.RecallItem;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Kit checks: nothing synced for one agent is recalled for another. */
abstract class AgentIsolationChecks extends CheckGroup {

  AgentIsolationChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("a turn synced for one agent is never recalled for another, same owner")
  void aTurnSyncedForOneAgentIsNeverRecalledForAnother() {
    sync(aliceTurn(AGENT));

    assertRecalledIfItRecallsTurns(
        AGENT, ALICE, ALICE_PHRASE, 10, "the agent the turn belongs to recalls it (control)");
    List<RecallItem> other =
        assertNotRecalled(
            OTHER_AGENT, ALICE, ALICE_PHRASE, 10, "recall of another agent for the same owner");
    assertThat(provider().systemPromptBlock(OTHER_AGENT)).doesNotContainIgnoringCase(ALICE_PHRASE);
  }
}
