package dev.memstack.host.api;

/** A request that conflicts with the host's state: answered with 409. */
public final class ConflictException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public ConflictException(String message) {
    super(message);
  }
}
