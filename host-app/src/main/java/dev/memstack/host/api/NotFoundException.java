package dev.memstack.host.api;

/** An unknown plugin, provider or tool: answered with 404. */
final class NotFoundException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  NotFoundException(String message) {
    super(message);
  }
}
