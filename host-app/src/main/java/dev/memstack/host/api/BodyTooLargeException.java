package dev.memstack.host.api;

import java.io.IOException;

/** Thrown while reading a request body that grows past {@code memstack.api.max-body-bytes}. */
final class BodyTooLargeException extends IOException {

  private static final long serialVersionUID = 1L;

  private final long limit;

  BodyTooLargeException(long limit) {
    super(message(limit));
    this.limit = limit;
  }

  static String message(long limit) {
    return "the request body is larger than " + limit + " bytes (memstack.api.max-body-bytes)";
  }

  long limit() {
    return limit;
  }
}
