package dev.memstack.spi;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A memory tool a provider offers to agents.
 *
 * @param name unique within the provider, {@code [a-z][a-z0-9_]{0,63}}
 * @param description what the tool does, for the model, never {@code null}
 * @param inputSchema the JSON Schema of the arguments object, as JSON text, never {@code null}
 */
public record ToolSpec(String name, String description, String inputSchema) {

  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

  public ToolSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(inputSchema, "inputSchema");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("tool name must match [a-z][a-z0-9_]*, got: " + name);
    }
  }
}
