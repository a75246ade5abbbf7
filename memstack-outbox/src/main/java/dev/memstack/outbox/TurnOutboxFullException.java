package dev.memstack.outbox;

/**
 * A turn was refused because a provider's delivery queue is full (the provider has been failing or
 * slow for a long time), or because the durable outbox as a whole cannot take more (its journal is
 * at its size limit or cannot be written). Nothing was accepted; the caller should answer 503 and
 * let the client retry later.
 */
public final class TurnOutboxFullException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String providerId;

  public TurnOutboxFullException(String providerId, int capacity) {
    super(
        "the turn queue of provider "
            + providerId
            + " is full ("
            + capacity
            + " turns waiting); try again later");
    this.providerId = providerId;
  }

  /**
   * A refusal with its own message.
   *
   * @param providerId the provider whose queue is full, or {@code null} when the outbox as a whole
   *     is
   * @param message why, for people; never a secret
   */
  public TurnOutboxFullException(String providerId, String message) {
    super(message);
    this.providerId = providerId;
  }

  /** The provider whose queue is full; {@code null} when the outbox as a whole is full. */
  public String providerId() {
    return providerId;
  }
}
