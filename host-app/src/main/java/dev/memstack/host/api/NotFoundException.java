package dev.memstack.host.api;

/** An unknown plugin, provider or tool: answered with 404. */
public final class NotFoundException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public NotFoundException(String message) {
    super(message);
  }
}
