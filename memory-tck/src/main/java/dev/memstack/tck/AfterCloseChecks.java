package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Turn;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Kit checks: a closed provider refuses calls. */
abstract class AfterCloseChecks extends CheckGroup {

  AfterCloseChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("prefetch fails with IllegalStateException")
  void prefetchFailsWithIllegalStateException() {
    RecallRequest request = request(AGENT, ALICE, ALICE_PHRASE, 5);
    closeProvider();

    assertThatThrownBy(() -> provider().prefetch(request))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  @DisplayName("syncTurn fails with IllegalStateException")
  void syncTurnFailsWithIllegalStateException() {
    Turn turn = aliceTurn(AGENT);
    closeProvider();

    assertThatThrownBy(() -> provider().syncTurn(turn)).isInstanceOf(IllegalStateException.class);
  }
}
