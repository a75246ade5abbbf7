package dev.memstack.spi;

import java.util.Objects;

/**
 * A tool call that cannot be done; the host answers the caller with the {@link Kind}'s HTTP status
 * and the message, so the message must name what is wrong and must not contain secrets.
 */
public class ToolException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Why a tool call failed. */
  public enum Kind {
    /** A missing or invalid argument (HTTP 400). */
    INVALID_ARGUMENT,
    /** The tool or its target does not exist (HTTP 404). */
    NOT_FOUND,
    /** The call conflicts with the current state, e.g. an edit found no match (HTTP 409). */
    CONFLICT,
    /** The caller may not do this (HTTP 403). */
    FORBIDDEN,
    /** The provider cannot serve the call now (HTTP 503). */
    UNAVAILABLE
  }

  private final Kind kind;

  public ToolException(Kind kind, String message) {
    super(message);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  public ToolException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  public Kind kind() {
    return kind;
  }
}
