package dev.memstack.spi;

/**
 * The provider did not attempt the call because a dependency is known to be down (typically its own
 * circuit breaker towards a server is open). Hosts treat it as no verdict, not as a failure: it
 * does not count towards the host's circuit breaker for the provider, so the host goes on calling
 * and the provider answers again as soon as its dependency does. The call still gave no answer: a
 * {@link MemoryProvider#prefetch prefetch} is left out of that answer, a {@link
 * MemoryProvider#syncTurn syncTurn} is retried later like after any throw.
 *
 * <p>Throw it only when nothing was attempted, and fast; a call that was made and failed (a
 * timeout, an error answer, a failed trial call of the provider's own breaker) throws its own
 * exception so that it counts. The message names the dependency and when it will be tried again,
 * and never contains a secret.
 *
 * @since 0.2.0
 */
public class ProviderUnavailableException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public ProviderUnavailableException(String message) {
    super(message);
  }

  public ProviderUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
