package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.memstack.spi.Capability;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.Scope;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Kit checks: feedback applies only to the caller's own view ({@code FEEDBACK}). */
abstract class FeedbackChecks extends CheckGroup {

  FeedbackChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  private static final String QUERY = "saffron lantern";

  @BeforeEach
  void requireFeedback() {
    assumeCapability(Capability.FEEDBACK);
  }

  /** The {@code id} metadata of every item; a provider that claims FEEDBACK must give it. */
  private List<String> ids(List<RecallItem> items) {
    List<String> ids = new ArrayList<>();
    for (RecallItem item : items) {
      String id = item.metadata().get("id");
      assertThat(id).as("id metadata of %s (feedback names items by it)", item).isNotBlank();
      ids.add(id);
    }
    return ids;
  }

  @Test
  @DisplayName("one owner's feedback on shared memory leaves another owner's answer unchanged")
  void oneOwnersFeedbackLeavesAnotherOwnersAnswerUnchanged() {
    assumeCapability(Capability.SHARED_MEMORY);
    writeShared(provider(), AGENT, Scope.TEAM, "The saffron lantern hangs in the hall.");
    writeShared(provider(), AGENT, Scope.TEAM, "A saffron scarf was left near the lantern room.");
    writeShared(provider(), AGENT, Scope.GLOBAL, "Saffron is the colour of the lobby.");
    awaitIndexed(provider());
    sync(turn(AGENT, BOB, "My saffron lantern collection has nine pieces.", "Nine, noted."));
    List<RecallItem> before = recall(AGENT, BOB, QUERY, 10);
    assumeTrue(
        before.stream().filter(item -> item.scope() != Scope.PERSONAL).count() >= 2,
        () -> provider().id() + " recalls fewer than two shared items for '" + QUERY + "'");
    List<String> order = ids(before);
    // alice confirms the shared item bob sees last, again and again
    String last = null;
    for (RecallItem item : before) {
      if (item.scope() != Scope.PERSONAL) {
        last = item.metadata().get("id");
      }
    }
    assertThat(ids(recall(AGENT, ALICE, QUERY, 10))).as("alice sees it too").contains(last);
    for (int i = 0; i < 10; i++) {
      int applied = provider().feedback(AGENT, ALICE, List.of(last));
      assertThat(applied).as("feedback applied for one id").isBetween(0, 1);
    }
    awaitIndexed(provider());

    List<RecallItem> after = recall(AGENT, BOB, QUERY, 10);
    assertThat(ids(after)).as("bob's order after alice's feedback").isEqualTo(order);
    assertWellFormed(after, BOB, 10);
    List<RecallItem> alices = recall(AGENT, ALICE, QUERY, 10);
    assertWellFormed(alices, ALICE, 10);
    for (int i = 1; i < alices.size(); i++) {
      assertThat(alices.get(i).score())
          .as("alice's scores after her feedback stay in order: %s", alices)
          .isLessThanOrEqualTo(alices.get(i - 1).score());
    }
  }

  @Test
  @DisplayName("applies no id that is unknown or another owner's, and does not throw")
  void appliesNoUnknownOrForeignId() {
    sync(aliceTurn(AGENT), bobTurn(AGENT));
    List<String> bobs = ids(recall(AGENT, BOB, BOB_PHRASE, 10));

    assertThat(provider().feedback(AGENT, ALICE, List.of())).as("no ids").isZero();
    assertThat(provider().feedback(AGENT, ALICE, List.of("no-such-id-" + System.nanoTime())))
        .as("an unknown id")
        .isZero();
    if (!bobs.isEmpty()) {
      assertThat(provider().feedback(AGENT, ALICE, bobs))
          .as("ids of bob's personal memory, sent as alice")
          .isZero();
      assertThat(provider().feedback(OTHER_AGENT, BOB, bobs))
          .as("ids of bob's memory of another agent")
          .isZero();
    }
    List<String> alices = ids(recall(AGENT, ALICE, ALICE_PHRASE, 10));
    assertThat(provider().feedback(AGENT, ALICE, alices))
        .as("alice's own ids")
        .isBetween(0, alices.size());
  }
}
