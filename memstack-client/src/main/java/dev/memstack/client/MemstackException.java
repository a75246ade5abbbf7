package dev.memstack.client;

/**
 * A call to the memstack host did not succeed: either the host answered with an error ({@link
 * MemstackApiException}) or no answer came ({@link MemstackConnectionException}).
 */
public abstract sealed class MemstackException extends RuntimeException
    permits MemstackApiException, MemstackConnectionException {

  private static final long serialVersionUID = 1L;

  MemstackException(String message, Throwable cause) {
    super(message, cause);
  }
}
