package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.outbox.DeliveryPort;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.journal.DeadLetter;
import dev.memstack.outbox.journal.MemoryJournal;
import dev.memstack.spi.Capability;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import dev.memstack.spi.TurnRejectedException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kit checks: a turn the provider can never store is refused with {@link TurnRejectedException}
 * ({@code REJECTS_TURNS}), alone and inside a batch, leaves nothing behind, and through the host's
 * outbox engine is parked as a dead letter while the next turn is delivered.
 */
abstract class TurnRejectionChecks extends CheckGroup {

  private static final String NEXT_PHRASE = "periwinkle lighthouse sonata";

  TurnRejectionChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void requireRejection() {
    assumeCapability(Capability.REJECTS_TURNS);
  }

  private Turn rejected() {
    Turn turn = kit.turnTheProviderRejects(AGENT, ALICE);
    assertThat(turn)
        .as(
            "the provider claims REJECTS_TURNS: the kit test must override"
                + " turnTheProviderRejects(agent, owner) with a turn it refuses")
        .isNotNull();
    return turn;
  }

  @Test
  @DisplayName("refuses the turn with TurnRejectedException, alone and in a batch")
  void refusesTheTurnAloneAndInABatch() {
    Turn bad = rejected();
    assertThatThrownBy(() -> provider().syncTurn(bad))
        .as("syncTurn of the turn the provider rejects")
        .isInstanceOf(TurnRejectedException.class)
        .hasMessageNotContaining(bad.userMessage());
    Turn good = turn(AGENT, ALICE, "the next turn is about " + NEXT_PHRASE, "noted");
    try {
      provider().syncTurns(List.of(good, bad));
    } catch (TurnRejectedException expected) {
      // a batch holding it may be refused whole: the host then delivers it turn by turn
    }
    sync(good);
    assertRecalledIfItRecallsTurns(AGENT, ALICE, NEXT_PHRASE, 10, "the good turn after a refusal");
  }

  @Test
  @DisplayName("is parked by the outbox as a dead letter, and the next turn is delivered")
  void isParkedByTheOutboxAndTheNextTurnDelivered() throws Exception {
    Turn bad = rejected();
    Turn good = turn(AGENT, ALICE, "the next turn is about " + NEXT_PHRASE, "noted");
    MemoryProvider provider = provider();
    OutboxSettings defaults = OutboxSettings.defaults();
    OutboxSettings settings =
        new OutboxSettings(
            defaults.segmentSizeBytes(),
            defaults.maxPending(),
            defaults.maxJournalSizeBytes(),
            false,
            defaults.eraseWait(),
            defaults.deliveryBatch(),
            Duration.ofMillis(20),
            Duration.ofMillis(100),
            Duration.ofSeconds(5),
            defaults.shards(),
            defaults.leaseTtl(),
            Integer.MAX_VALUE); // only a rejection may park it
    try (OutboxEngine outbox =
        OutboxEngine.start(new MemoryJournal(), settings, new OnlyProvider(provider))) {
      outbox.enqueue(bad, List.of(OnlyProvider.ID));
      outbox.enqueue(good, List.of(OnlyProvider.ID));
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (outbox.stats().get(OnlyProvider.ID).pending() > 0 && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(outbox.stats().get(OnlyProvider.ID).pending())
          .as("turns still waiting for the provider after 30 s: the rejected turn stalls the lane")
          .isZero();
      assertThat(outbox.deadLetters().list(null))
          .as("dead letters")
          .singleElement()
          .satisfies(
              letter -> {
                assertThat(letter.turnId()).isEqualTo(bad.turnId());
                assertThat(letter.reason()).isEqualTo(DeadLetter.REJECTED);
              });
    }
    awaitIndexed(provider);
    assertRecalledIfItRecallsTurns(AGENT, ALICE, NEXT_PHRASE, 10, "the turn after the dead letter");
  }

  /** The provider under test as the outbox's only recipient. */
  private static final class OnlyProvider implements DeliveryPort, DeliveryPort.Recipient {

    static final String ID = "under-test";

    private final MemoryProvider provider;

    OnlyProvider(MemoryProvider provider) {
      this.provider = provider;
    }

    @Override
    public List<Recipient> enabled() {
      return List.of(this);
    }

    @Override
    public Optional<Recipient> find(String providerId) {
      return ID.equals(providerId) ? Optional.of(this) : Optional.empty();
    }

    @Override
    public String id() {
      return ID;
    }

    @Override
    public boolean claims(Capability capability) {
      return provider.capabilities().contains(capability);
    }

    @Override
    public void syncTurns(List<Turn> turns) {
      provider.syncTurns(turns);
    }

    @Override
    public void syncTurn(Turn turn) {
      provider.syncTurn(turn);
    }

    @Override
    public long forget(OwnerKey owner) {
      return provider.forget(owner);
    }
  }
}
