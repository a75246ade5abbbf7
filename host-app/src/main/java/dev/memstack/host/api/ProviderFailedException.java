package dev.memstack.host.api;

/** A provider failed a direct call (a tool) in a way that is not the caller's fault: 502. */
public final class ProviderFailedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public ProviderFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
