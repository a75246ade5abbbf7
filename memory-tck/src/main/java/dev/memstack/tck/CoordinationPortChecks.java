package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.Turn;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kit checks: a provider keeps answering when the coordination port refuses, and releases its locks
 * (SPI 0.3.0).
 */
abstract class CoordinationPortChecks extends CheckGroup {

  CoordinationPortChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("recall and prompts keep answering while every coordination call is refused")
  void keepsAnsweringWhileCoordinationIsRefused() {
    RecordingCoordination coordination =
        RecordingCoordination.shared(MutableClock.atSystemTime()).refuseAll(true);
    recreateWith(coordination);
    Turn turn = aliceTurn(AGENT);
    try {
      provider().syncTurn(turn);
    } catch (ProviderUnavailableException e) {
      // allowed: the host retries the turn later
    }

    assertThatCode(() -> recall(AGENT, ALICE, ALICE_PHRASE, 5))
        .as("prefetch while the coordination is unreachable")
        .doesNotThrowAnyException();
    assertThatCode(() -> provider().systemPromptBlock(AGENT))
        .as("systemPromptBlock while the coordination is unreachable")
        .doesNotThrowAnyException();

    coordination.refuseAll(false);
    provider().syncTurn(turn);
    awaitIndexed(provider());
    assertRecalledIfItRecallsTurns(
        AGENT, ALICE, ALICE_PHRASE, 5, "the turn, once the coordination answers again");
  }

  @Test
  @DisplayName("every lock a provider takes is released by the time close returns")
  void everyLockIsReleasedByClose() {
    RecordingCoordination coordination = RecordingCoordination.shared(MutableClock.atSystemTime());
    recreateWith(coordination);
    sync(aliceTurn(AGENT), bobTurn(AGENT));
    recall(AGENT, ALICE, ALICE_PHRASE, 5);
    provider().systemPromptBlock(AGENT);
    closeProvider();

    assertThat(coordination.held()).as("locks still held after close").isEmpty();
  }
}
