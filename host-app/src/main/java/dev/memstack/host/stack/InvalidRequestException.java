package dev.memstack.host.stack;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * A request the stack refuses, naming the request field at fault: what the request records ({@link
 * ContextQuery}, {@link TurnRequest}) throw from their compact constructors, and what the stack
 * throws for a request that names something it does not have (an unknown provider). The REST API
 * answers it with 400 and the field; an MCP tool with an error result naming the field.
 */
public class InvalidRequestException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String field;

  /**
   * @param field the request field at fault, or {@code null} when no single field is
   * @param message what is wrong, for people; never {@code null}
   */
  public InvalidRequestException(String field, String message) {
    super(Objects.requireNonNull(message, "message"));
    this.field = field;
  }

  /** The request field at fault; {@code null} when no single field is. */
  public String field() {
    return field;
  }

  /**
   * Runs a parser or check (usually an SPI record constructor) and turns its {@link
   * IllegalArgumentException} or {@link NullPointerException} into one naming {@code field}.
   */
  public static <T> T check(String field, Supplier<T> check) {
    try {
      return check.get();
    } catch (InvalidRequestException e) {
      throw e;
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new InvalidRequestException(
          field, e.getMessage() == null ? field + " is invalid" : e.getMessage());
    }
  }
}
