package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kit checks: {@code forget(owner)} erases that owner everywhere and nobody else ({@code FORGET}).
 */
abstract class ForgetChecks extends CheckGroup {

  ForgetChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void requireForget() {
    assumeCapability(Capability.FORGET);
  }

  @Test
  @DisplayName("erases that owner in every agent and nobody else")
  void erasesThatOwnerInEveryAgentAndNobodyElse() {
    sync(aliceTurn(AGENT), aliceTurn(OTHER_AGENT), bobTurn(AGENT));
    boolean recallsTurns = has(Capability.RECALLS_TURNS);
    if (recallsTurns) {
      assertRecalled(AGENT, ALICE, ALICE_PHRASE, 10, "alice's turn before forget (control)");
    }

    long removed = provider().forget(ALICE);
    awaitIndexed(provider());

    assertThat(removed).as("count of removed entries").isNotNegative();
    for (AgentId agent : List.of(AGENT, OTHER_AGENT)) {
      assertThat(recall(agent, ALICE, ALICE_PHRASE, 10))
          .as("alice's recall in %s after forget", agent)
          .noneMatch(item -> mentions(item, ALICE_PHRASE))
          .noneMatch(item -> item.scope() == Scope.PERSONAL && ALICE.equals(item.owner()));
    }
    if (recallsTurns) {
      assertRecalled(AGENT, BOB, BOB_PHRASE, 10, "bob's recall after alice was forgotten");
    }
  }

  @Test
  @DisplayName("accepts an owner it has never seen")
  void acceptsAnOwnerItHasNeverSeen() {
    sync(bobTurn(AGENT));

    assertThat(provider().forget(OwnerKey.of("user:nobody-" + System.nanoTime()))).isNotNegative();
    if (has(Capability.RECALLS_TURNS)) {
      awaitIndexed(provider());
      assertThat(recall(AGENT, BOB, BOB_PHRASE, 10)).anyMatch(item -> mentions(item, BOB_PHRASE));
    }
  }
}
