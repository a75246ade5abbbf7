package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.RecallItem;
import dev.memstack.spi.Scope;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kit checks: one owner's personal memory never reaches another owner, an owner-less request or the
 * system prompt block.
 */
abstract class OwnerIsolationChecks extends CheckGroup {

  OwnerIsolationChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("owner A's personal memory never appears in owner B's recall")
  void ownerAsPersonalMemoryNeverAppearsInOwnerBsRecall() {
    sync(aliceTurn(AGENT), bobTurn(AGENT));

    assertRecalledIfItRecallsTurns(
        AGENT, ALICE, ALICE_PHRASE, 10, "alice recalls her own turn (control)");
    List<RecallItem> bobs = recall(AGENT, BOB, ALICE_PHRASE, 10);
    assertThat(bobs)
        .as("bob's recall for alice's words")
        .noneMatch(item -> item.scope() == Scope.PERSONAL && !BOB.equals(item.owner()))
        .noneMatch(item -> mentions(item, ALICE_PHRASE));
    assertWellFormed(bobs, BOB, 10);
  }

  @Test
  @DisplayName("an owner-less request never returns personal items")
  void anOwnerlessRequestNeverReturnsPersonalItems() {
    sync(aliceTurn(AGENT), bobTurn(AGENT));

    for (String query : List.of(ALICE_PHRASE, BOB_PHRASE, "")) {
      List<RecallItem> items = recall(AGENT, null, query, 10);
      assertThat(items)
          .as("owner-less recall for '%s'", query)
          .noneMatch(item -> item.scope() == Scope.PERSONAL)
          .noneMatch(item -> mentions(item, ALICE_PHRASE) || mentions(item, BOB_PHRASE));
    }
  }

  @Test
  @DisplayName("the system prompt block never carries personal memory")
  void theSystemPromptBlockNeverCarriesPersonalMemory() {
    sync(aliceTurn(AGENT), bobTurn(AGENT));

    String block = provider().systemPromptBlock(AGENT);
    assertThat(block).isNotNull();
    assertThat(mentions(block, ALICE_PHRASE) || mentions(block, BOB_PHRASE))
        .as("system prompt block mentions a personal turn:%n%s", block)
        .isFalse();
  }
}
