package dev.memstack.spi;

import java.util.Objects;

/**
 * A tool call that cannot be done; the host answers the caller with the {@link Kind}'s HTTP status
 * and the message, so the message must name what is wrong and must not contain secrets. An argument
 * error names the argument in {@link #field()} ({@link #invalidArgument(String, String)}); the host
 * returns it as the error body's {@code field}.
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
  private final String field;

  public ToolException(Kind kind, String message) {
    this(kind, message, null, null);
  }

  public ToolException(Kind kind, String message, Throwable cause) {
    this(kind, message, cause, null);
  }

  private ToolException(Kind kind, String message, Throwable cause, String field) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.field = field;
  }

  /**
   * A missing or invalid argument, named.
   *
   * @param field the argument's name in the arguments object (a JSON pointer-like path such as
   *     {@code items/2/text} for a nested one), never {@code null}
   * @param message what is wrong with it
   * @since 0.2.0
   */
  public static ToolException invalidArgument(String field, String message) {
    return new ToolException(
        Kind.INVALID_ARGUMENT, message, null, Objects.requireNonNull(field, "field"));
  }

  /** As {@link #invalidArgument(String, String)}, with the cause. */
  public static ToolException invalidArgument(String field, String message, Throwable cause) {
    return new ToolException(
        Kind.INVALID_ARGUMENT, message, cause, Objects.requireNonNull(field, "field"));
  }

  public Kind kind() {
    return kind;
  }

  /**
   * The argument the error is about, or {@code null} when it is not about one argument.
   *
   * @since 0.2.0
   */
  public String field() {
    return field;
  }
}
