package dev.memstack.spi;

/**
 * The provider refuses this turn for good: it can never be stored as it is (text its store cannot
 * hold, a turn that breaks a rule of its own), so trying it again is pointless. Thrown from {@link
 * MemoryProvider#syncTurn syncTurn} (or from {@link MemoryProvider#syncTurns syncTurns}, which the
 * host then splits to find the turn). The host parks the turn at once as a dead letter for this
 * provider and delivers the next turns; an admin lists dead letters and retries or deletes them
 * ({@code /api/v1/outbox/dead-letters}). Dead letters are erased with their owner.
 *
 * <p>Throw it only when the same turn can never succeed. A dependency that is down ({@link
 * ProviderUnavailableException}) or a timeout is not a rejection: such turns are retried without
 * limit, and an accepted turn is never given up because a provider is away. Any other exception is
 * retried too, and parked only after the host's {@code memstack.outbox.max-attempts} while the
 * provider goes on storing other turns. The message says why, without secrets and without the
 * turn's text.
 *
 * <p>The host handles this exception whether or not the provider claims {@link
 * Capability#REJECTS_TURNS}; claiming it opts into the compatibility kit's check.
 *
 * @since 0.5.0
 */
public class TurnRejectedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public TurnRejectedException(String message) {
    super(message);
  }

  public TurnRejectedException(String message, Throwable cause) {
    super(message, cause);
  }
}
