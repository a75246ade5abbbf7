package dev.memstack.support;

import dev.memstack.spi.ToolException;
import java.util.Collection;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The errors of a tool-argument reader, each a {@link ToolException} of kind {@code
 * INVALID_ARGUMENT} that names the argument in {@link ToolException#field()} (the host returns it
 * as the error body's {@code field}) and starts its message with that name, so every provider words
 * the same mistake the same way.
 *
 * <p>{@link ToolArguments} throws these; a provider's own checks of a value it has read use them
 * too:
 *
 * <pre>{@code
 * String status = args.requiredText("status");
 * if (!STATUSES.contains(status)) {
 *   throw ToolArgumentErrors.invalid("status", "must be one of " + STATUSES);
 * }
 * }</pre>
 *
 * <p>Stateless and thread-safe. An argument name given by the caller (an unknown argument) is cut
 * to {@value #MAX_NAME} characters in the message and the field.
 */
public final class ToolArgumentErrors {

  /** The longest argument name repeated back to the caller. */
  public static final int MAX_NAME = 64;

  private ToolArgumentErrors() {}

  /** {@code <field> is required}. */
  public static ToolException required(String field) {
    return ToolException.invalidArgument(field, field + " is required");
  }

  /**
   * {@code <field> must be <what>}, e.g. {@code mustBe("limit", "an integer")}.
   *
   * @param what the expected type or form, e.g. {@code a string}, {@code true or false}
   */
  public static ToolException mustBe(String field, String what) {
    return ToolException.invalidArgument(field, field + " must be " + what);
  }

  /** {@code <field> must be between <min> and <max>, got <given>}. */
  public static ToolException outOfRange(String field, Number min, Number max, Number given) {
    return ToolException.invalidArgument(
        field, field + " must be between " + min + " and " + max + ", got " + given);
  }

  /** {@code <field> <problem>}, e.g. {@code invalid("scope", "must be one of personal, team")}. */
  public static ToolException invalid(String field, String problem) {
    return ToolException.invalidArgument(field, field + " " + problem);
  }

  /** {@code <field> is not an argument of this tool; known: [...]}. */
  public static ToolException unknown(String field, Collection<String> known) {
    String name = clip(field);
    return ToolException.invalidArgument(
        name, name + " is not an argument of this tool; known: " + new TreeSet<>(known));
  }

  /**
   * Refuses the first of {@code given} that is not in {@code known}.
   *
   * @throws ToolException {@link #unknown(String, Collection)} for it
   */
  public static void requireKnown(Iterable<String> given, Collection<String> known) {
    for (String name : given) {
      if (!known.contains(name)) {
        throw unknown(name, known);
      }
    }
  }

  /**
   * The arguments as a whole cannot be read (not JSON, not an object): {@code INVALID_ARGUMENT}
   * without a field, since no single argument is at fault.
   */
  public static ToolException unreadable(String problem) {
    return new ToolException(ToolException.Kind.INVALID_ARGUMENT, "arguments " + problem);
  }

  /** The field name of an element of a list argument: {@code items/2}, or {@code items/2/text}. */
  public static String element(String field, int index, String... within) {
    Objects.requireNonNull(field, "field");
    StringBuilder path = new StringBuilder(field).append('/').append(index);
    for (String part : within) {
      path.append('/').append(part);
    }
    return path.toString();
  }

  private static String clip(String name) {
    return name.length() <= MAX_NAME ? name : name.substring(0, MAX_NAME) + "…";
  }
}
