package dev.memstack.host.api;

import java.util.Objects;

/** A request the API refuses with 400, naming the field at fault. */
public final class BadRequestException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String field;

  public BadRequestException(String field, String message) {
    super(Objects.requireNonNull(message, "message"));
    this.field = field;
  }

  /** The request field at fault; {@code null} when no single field is. */
  public String field() {
    return field;
  }
}
