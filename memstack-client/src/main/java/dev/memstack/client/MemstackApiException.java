package dev.memstack.client;

import java.time.Duration;
import java.util.Optional;

/**
 * The host answered with an error status. When the body is the host's JSON error ({@code
 * {"error":"bad_request","field":"ownerKey","message":"..."}}) its parts are here; a body that is
 * not (a proxy's HTML page, say) leaves {@link #error()} and {@link #field()} {@code null} and its
 * start in {@link #hostMessage()}.
 */
public final class MemstackApiException extends MemstackException {

  private static final long serialVersionUID = 1L;

  private final int status;
  private final String error;
  private final String field;
  private final String hostMessage;
  private final Duration retryAfter;

  MemstackApiException(
      String call,
      int status,
      String error,
      String field,
      String hostMessage,
      Duration retryAfter) {
    super(describe(call, status, error, field, hostMessage), null);
    this.status = status;
    this.error = error;
    this.field = field;
    this.hostMessage = hostMessage;
    this.retryAfter = retryAfter;
  }

  private static String describe(
      String call, int status, String error, String field, String hostMessage) {
    StringBuilder text = new StringBuilder(call).append(" answered ").append(status);
    if (error != null) {
      text.append(' ').append(error);
    }
    if (field != null) {
      text.append(" (field ").append(field).append(')');
    }
    if (hostMessage != null && !hostMessage.isEmpty()) {
      text.append(": ").append(hostMessage);
    }
    return text.toString();
  }

  /** The HTTP status, 400 or more. */
  public int status() {
    return status;
  }

  /**
   * The host's stable error code ({@code bad_request}, {@code unauthorized}, {@code forbidden},
   * {@code not_found}, {@code unavailable}, ...); {@code null} when the body was not a host error.
   */
  public String error() {
    return error;
  }

  /** The request field at fault, as the host named it; {@code null} when no single field is. */
  public String field() {
    return field;
  }

  /** The host's message for people (or the start of a body that was not a host error). */
  public String hostMessage() {
    return hostMessage;
  }

  /** The host's {@code Retry-After}, when it sent one (a full turn queue answers 503 with one). */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /** Whether the host refused the request as it is (4xx): sending it again will not help. */
  public boolean clientError() {
    return status >= 400 && status < 500;
  }
}
