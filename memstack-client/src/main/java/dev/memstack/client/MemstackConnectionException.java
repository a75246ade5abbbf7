package dev.memstack.client;

/**
 * No usable answer came from the host: it could not be reached, the connection broke, it did not
 * answer within the client's timeout ({@link #timedOut()}), or its success answer was not the JSON
 * the call expects (a proxy in between, say).
 */
public final class MemstackConnectionException extends MemstackException {

  private static final long serialVersionUID = 1L;

  private final boolean timedOut;

  MemstackConnectionException(String message, boolean timedOut, Throwable cause) {
    super(message, cause);
    this.timedOut = timedOut;
  }

  /**
   * Whether the connect or request timeout ran out (rather than a refused or broken connection).
   */
  public boolean timedOut() {
    return timedOut;
  }
}
