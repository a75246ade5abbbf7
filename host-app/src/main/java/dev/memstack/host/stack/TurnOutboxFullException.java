package dev.memstack.host.stack;

/**
 * A turn was refused because a provider's delivery queue is full (the provider has been failing or
 * slow for a long time). The caller should answer 503 and let the client retry later.
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

  /** The provider whose queue is full. */
  public String providerId() {
    return providerId;
  }
}
