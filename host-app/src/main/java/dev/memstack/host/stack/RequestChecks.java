package dev.memstack.host.stack;

import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Turn;

/**
 * The field rules of the SPI records a request becomes ({@link Turn}, {@link RecallRequest}),
 * checked on the request records so that an error names its field and the SPI record the stack
 * builds from a checked request cannot fail.
 */
final class RequestChecks {

  /** Longest conversation or turn id, as the SPI takes it. */
  static final int MAX_ID_LENGTH = 128;

  private RequestChecks() {}

  /** A conversation or turn id: 1-128 characters, no control characters or slashes. */
  static String id(String field, String id) {
    if (id == null) {
      throw new InvalidRequestException(field, field + " is required");
    }
    if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
      throw new InvalidRequestException(
          field, field + " must be 1-" + MAX_ID_LENGTH + " characters");
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (Character.isISOControl(c) || c == '/' || c == '\\') {
        throw new InvalidRequestException(
            field, field + " must not contain control characters or slashes");
      }
    }
    return id;
  }

  /** A text that must be given (it may be empty) and at most {@code maxLength} characters long. */
  static String text(String field, String text, int maxLength) {
    if (text == null) {
      throw new InvalidRequestException(field, field + " is required");
    }
    if (text.length() > maxLength) {
      throw new InvalidRequestException(
          field, field + " is longer than " + maxLength + " characters (" + text.length() + ")");
    }
    return text;
  }

  /** A value that must be given. */
  static <T> T required(String field, T value) {
    if (value == null) {
      throw new InvalidRequestException(field, field + " is required");
    }
    return value;
  }
}
