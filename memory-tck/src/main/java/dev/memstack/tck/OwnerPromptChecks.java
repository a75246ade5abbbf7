package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.Capability;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kit checks: the owner prompt block is the owner's own and stable between writes ({@code
 * OWNER_PROMPT}).
 */
abstract class OwnerPromptChecks extends CheckGroup {

  OwnerPromptChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void requireOwnerPrompt() {
    assumeCapability(Capability.OWNER_PROMPT);
  }

  @Test
  @DisplayName("never carries another owner's memory, nor the owner's memory of another agent")
  void neverCarriesAnotherOwnersMemory() {
    sync(aliceTurn(AGENT), bobTurn(AGENT));

    String bobs = provider().ownerPromptBlock(AGENT, BOB);
    String alicesElsewhere = provider().ownerPromptBlock(OTHER_AGENT, ALICE);

    assertThat(bobs).as("bob's owner prompt").isNotNull().doesNotContain(ALICE_PHRASE);
    assertThat(alicesElsewhere)
        .as("alice's owner prompt in another agent")
        .isNotNull()
        .doesNotContain(ALICE_PHRASE);
  }

  @Test
  @DisplayName("is stable between writes, so prompt caches hold")
  void isStableBetweenWrites() {
    sync(aliceTurn(AGENT));

    String first = provider().ownerPromptBlock(AGENT, ALICE);
    String second = provider().ownerPromptBlock(AGENT, ALICE);

    assertThat(first).isNotNull().isEqualTo(second);
  }
}
