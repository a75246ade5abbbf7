package dev.memstack.spi;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A memory tool a provider offers to agents.
 *
 * <p>The {@link Effect} says what a call may do to stored memory. The host decides who may call the
 * tool from it (a {@code viewer} token only {@link Effect#READ} tools) and shows it to clients
 * (MCP's read-only and destructive hints); it never guesses from the tool's name. Declare it: a
 * tool built with the three-argument constructor is {@link Effect#UNDECLARED} and is treated as
 * destructive.
 *
 * @param name unique within the provider, {@code [a-z][a-z0-9_]{0,63}}
 * @param description what the tool does, for the model, never {@code null}
 * @param inputSchema the JSON Schema of the arguments object, as JSON text, never {@code null}
 * @param effect what a call may do to stored memory, never {@code null}
 * @since 0.2.0 for {@code effect}
 */
public record ToolSpec(String name, String description, String inputSchema, Effect effect) {

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

  /** What a call of a tool may do to stored memory. */
  public enum Effect {
    /** Reads only: nothing stored changes. */
    READ,
    /** Adds memory or changes it in a way that can be undone (a status, a new version). */
    WRITE,
    /** Deletes or overwrites memory. */
    DESTRUCTIVE,
    /** Not declared (a provider built before 0.2.0); the host treats it as {@link #DESTRUCTIVE}. */
    UNDECLARED;

    /** Whether a call may change stored memory; {@code false} only for {@link #READ}. */
    public boolean changesMemory() {
      return this != READ;
    }
  }

  public ToolSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(inputSchema, "inputSchema");
    Objects.requireNonNull(effect, "effect");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("tool name must match [a-z][a-z0-9_]*, got: " + name);
    }
  }

  /** A tool whose effect is not declared ({@link Effect#UNDECLARED}), as before 0.2.0. */
  public ToolSpec(String name, String description, String inputSchema) {
    this(name, description, inputSchema, Effect.UNDECLARED);
  }
}
