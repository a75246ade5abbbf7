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

    assertRecalled(AGENT, ALICE, ALICE_PHRASE, 10, "alice recalls her turn from the batch");
    assertRecalled(AGENT, BOB, BOB_PHRASE, 10, "bob recalls his turn from the batch");
    List<RecallItem> bobs =
        assertNotRecalled(
            AGENT,
            BOB,
            ALICE_PHRASE,
            10,
            "bob's recall for alice's words after a batch holding both");
    assertWellFormed(bobs, BOB, 10);
  }

  @Test
  @DisplayName("keeps the same turn id of two owners as two turns, each recalled by its own owner")
  void keepsTheSameTurnIdOfTwoOwnersAsTwoTurns() {
    Turn alices = aliceTurn(AGENT);
    Turn bobs = bobTurn(AGENT);
    sync(alices);
    sync(
        Turns.turn(
            alices.turnId(), bobs.time(), AGENT, BOB, bobs.userMessage(), bobs.assistantReply()));
    Turn alicesAgain = aliceTurn(OTHER_AGENT);
    syncBatch(
        Turns.turn(
            alices.turnId(),
            alicesAgain.time(),
            OTHER_AGENT,
            ALICE,
            alicesAgain.userMessage(),
            alicesAgain.assistantReply()));

    List<RecallItem> alicesItems =
        assertRecalled(
            AGENT, ALICE, ALICE_PHRASE, 10, "alice recalls her turn, whose id bob used too");
    assertRecalled(AGENT, BOB, BOB_PHRASE, 10, "bob recalls his turn of the id alice used first");
    assertRecalled(
        OTHER_AGENT,
        ALICE,
        ALICE_PHRASE,
        10,
        "alice recalls the turn of the same id in another agent");
    List<RecallItem> bobsItems =
        assertNotRecalled(AGENT, BOB, ALICE_PHRASE, 10, "bob's recall for alice's words");
    assertNotRecalled(AGENT, ALICE, BOB_PHRASE, 10, "alice's recall for bob's words");
    assertWellFormed(alicesItems, ALICE, 10);
    assertWellFormed(bobsItems, BOB, 10);
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

  /** Syncs {@code turn} once and returns how many items mention alice's phrase (at least one). */
  private long syncedOnce(Turn turn) {
    sync(turn);
    long once = countMentions(recall(AGENT, ALICE, ALICE_PHRASE, 50), ALICE_PHRASE);
    assertThat(once).as("items for one delivery").isPositive();
    return once;
  }
}
