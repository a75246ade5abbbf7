package dev.memstack.mem0;

import java.net.http.HttpTimeoutException;
import java.util.Objects;

/**
 * A failed call to the Mem0 server. The message names the operation, the HTTP status, the server's
 * error code and request id when there are any, and never a credential. Timeouts carry a {@link
 * HttpTimeoutException} cause, a JDK type the host can recognise across the plugin boundary.
 */
final class Mem0Exception extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** What went wrong, coarse enough to decide on retries and the circuit breaker. */
  enum Kind {
    /** No connection (refused, reset, unknown host). */
    UNREACHABLE(true, true),
    /** No complete answer within the time allowed. */
    TIMEOUT(true, true),
    /** 401 or 403: the key is missing, wrong or lacks a role. */
    UNAUTHORIZED(false, true),
    /** 429: the server asks us to slow down. */
    RATE_LIMITED(true, true),
    /** 400, 413 or 422: the server refuses this request's content; resending will not help. */
    REJECTED(false, false),
    /** 404, 405 or another 4xx: the URL or flavor does not match the server (configuration). */
    WRONG_ENDPOINT(false, true),
    /** 5xx, including 502 with an upstream error code. */
    SERVER_ERROR(true, true),
    /** A 2xx answer that is not the JSON we expect, or larger than allowed. */
    BAD_RESPONSE(true, true);

    private final boolean transientFailure;
    private final boolean serverFault;

    Kind(boolean transientFailure, boolean serverFault) {
      this.transientFailure = transientFailure;
      this.serverFault = serverFault;
    }

    /** Whether the same request may succeed later. */
    boolean isTransient() {
      return transientFailure;
    }

    /** Whether the failure counts against the server in the circuit breaker. */
    boolean isServerFault() {
      return serverFault;
    }
  }

  private final Kind kind;
  private final int status;
  private final String errorCode;
  private final String requestId;

  Mem0Exception(
      Kind kind, String message, int status, String errorCode, String requestId, Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.status = status;
    this.errorCode = errorCode;
    this.requestId = requestId;
  }

  Kind kind() {
    return kind;
  }

  /** The HTTP status, or 0 when there was no answer. */
  int status() {
    return status;
  }

  /** The server's error code (e.g. {@code provider_timeout}), or {@code null}. */
  String errorCode() {
    return errorCode;
  }

  /** The server's request id, or {@code null}. */
  String requestId() {
    return requestId;
  }

  /** A timeout before any call was made, e.g. because the request deadline has passed. */
  static Mem0Exception timeout(String message) {
    return new Mem0Exception(
        Kind.TIMEOUT, message, 0, null, null, new HttpTimeoutException(message));
  }
}
