package dev.memstack.host.api;

import java.io.IOException;

/**
 * Thrown while reading a request body that grows past its limit: {@code
 * memstack.api.max-body-bytes}, or the larger limit of a route such as {@code
 * memstack.api.max-import-bytes}.
 */
final class BodyTooLargeException extends IOException {

  private static final long serialVersionUID = 1L;

  /** The key of the default limit. */
  static final String DEFAULT_KEY = "memstack.api.max-body-bytes";

  private final long limit;

  BodyTooLargeException(long limit) {
    this(limit, DEFAULT_KEY);
  }

  BodyTooLargeException(long limit, String key) {
    super(message(limit, key));
    this.limit = limit;
  }

  static String message(long limit) {
    return message(limit, DEFAULT_KEY);
  }

  static String message(long limit, String key) {
    return "the request body is larger than " + limit + " bytes (" + key + ")";
  }

  long limit() {
    return limit;
  }
}
