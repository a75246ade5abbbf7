package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.Capability;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.Scope;
import dev.memstack.spi.Turn;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Kit checks: synced turns are found again, once, for their own owner ({@code RECALLS_TURNS}). */
abstract class TurnRecallChecks extends CheckGroup {

  TurnRecallChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void requireTurnRecall() {
    assumeCapability(Capability.RECALLS_TURNS);
  }

  @Test
  @DisplayName("finds a synced turn again by an exact phrase from it")
  void findsASyncedTurnAgainByAnExactPhrase() {
    sync(sharedWordTurns(ALICE, 3).toArray(Turn[]::new));
    sync(aliceTurn(AGENT));
    sync(turn(AGENT, ALICE, "The weather was grey and windy today.", "Stay warm."));

    List<RecallItem> items = recall(AGENT, ALICE, ALICE_PHRASE, 5);
    assertThat(items)
        .as("recall for '%s'", ALICE_PHRASE)
        .anySatisfy(
            item -> {
              assertThat(item.text()).containsIgnoringCase(ALICE_PHRASE);
              assertThat(item.scope()).isEqualTo(Scope.PERSONAL);
              assertThat(item.owner()).isEqualTo(ALICE);
            });
  }

  @Test
  @DisplayName("stores a turn delivered twice only once")
  void storesATurnDeliveredTwiceOnlyOnce() {
    Turn turn = aliceTurn(AGENT);
    long once = syncedOnce(turn);

    sync(turn);
    sync(turn);
    long thrice = countMentions(recall(AGENT, ALICE, ALICE_PHRASE, 50), ALICE_PHRASE);
    assertThat(thrice).as("items after the same turn id was delivered three times").isEqualTo(once);
  }

  @Test
  @DisplayName("keeps every turn of a batch for its own owner")
  void keepsEveryTurnOfABatchForItsOwnOwner() {
    syncBatch(
        bobTurn(AGENT),
        aliceTurn(AGENT),
        turn(AGENT, ALICE, "The weather was grey and windy today.", "Stay warm."));

    assertEachRecallsOnlyTheirOwn("after a batch holding both");
  }

  @Test
  @DisplayName("keeps the same turn id of two owners as two turns, each recalled by its own owner")
  void keepsTheSameTurnIdOfTwoOwnersAsTwoTurns() {
    Turn alices = aliceTurn(AGENT);
    sync(alices);
    sync(withIdOf(alices, bobTurn(AGENT)));
    syncBatch(withIdOf(alices, aliceTurn(OTHER_AGENT)));

    assertEachRecallsOnlyTheirOwn("after bob used the turn id alice used first");
    assertRecalled(
        OTHER_AGENT,
        ALICE,
        ALICE_PHRASE,
        10,
        "alice recalls the turn of the same id in another agent");
  }

  @Test
  @DisplayName("stores a turn once when batches repeat it or overlap a single delivery")
  void storesATurnOnceWhenBatchesRepeatIt() {
    Turn turn = aliceTurn(AGENT);
    long once = syncedOnce(turn);

    Turn other = turn(AGENT, ALICE, "The weather was grey and windy today.", "Stay warm.");
    syncBatch(other, turn, turn);
    syncBatch(turn, other);
    assertThat(countMentions(recall(AGENT, ALICE, ALICE_PHRASE, 50), ALICE_PHRASE))
        .as("items after the same turn id came again in batches")
        .isEqualTo(once);
  }

  /**
   * In {@link #AGENT}: alice and bob each recall their own phrase and not the other's, and every
   * item either gets is well formed for them.
   */
  private void assertEachRecallsOnlyTheirOwn(String when) {
    assertRecalled(AGENT, ALICE, ALICE_PHRASE, 10, "alice recalls her turn " + when);
    assertRecalled(AGENT, BOB, BOB_PHRASE, 10, "bob recalls his turn " + when);
    List<RecallItem> alices =
        assertNotRecalled(AGENT, ALICE, BOB_PHRASE, 10, "alice's recall for bob's words " + when);
    List<RecallItem> bobs =
        assertNotRecalled(AGENT, BOB, ALICE_PHRASE, 10, "bob's recall for alice's words " + when);
    assertWellFormed(alices, ALICE, 10);
    assertWellFormed(bobs, BOB, 10);
  }

  /** {@code turn} under the id of {@code first}. */
  private static Turn withIdOf(Turn first, Turn turn) {
    return Turns.turn(
        first.turnId(),
        turn.time(),
        turn.agent(),
        turn.owner(),
        turn.userMessage(),
        turn.assistantReply());
  }

  /** Syncs {@code turn} once and returns how many items mention alice's phrase (at least one). */
  private long syncedOnce(Turn turn) {
    sync(turn);
    long once = countMentions(recall(AGENT, ALICE, ALICE_PHRASE, 50), ALICE_PHRASE);
    assertThat(once).as("items for one delivery").isPositive();
    return once;
  }
}
