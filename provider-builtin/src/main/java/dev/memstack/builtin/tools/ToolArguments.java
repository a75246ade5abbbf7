package dev.memstack.builtin.tools;

import dev.memstack.spi.ToolException;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool call's JSON arguments with typed, checked access. Every problem is a {@link ToolException}
 * of kind {@code INVALID_ARGUMENT} whose message starts with the argument's name.
 */
final class ToolArguments {

  private final ObjectNode node;

  private ToolArguments(ObjectNode node) {
    this.node = node;
  }

  /**
   * Parses {@code json}, which must be an object whose fields are all in {@code known}.
   *
   * @throws ToolException INVALID_ARGUMENT for malformed JSON or an unknown argument
   */
  static ToolArguments parse(JsonMapper mapper, String json, Set<String> known) {
    JsonNode parsed;
    try {
      parsed = json.isBlank() ? mapper.createObjectNode() : mapper.readTree(json);
    } catch (JacksonException e) {
      throw invalid("arguments are not valid JSON: " + e.getOriginalMessage());
    }
    if (parsed == null || parsed.isNull() || parsed.isMissingNode()) {
      parsed = mapper.createObjectNode();
    }
    if (!(parsed instanceof ObjectNode object)) {
      throw invalid("arguments must be a JSON object");
    }
    for (String name : object.propertyNames()) {
      if (!known.contains(name)) {
        throw invalid(name + " is not an argument of this tool; known: " + new TreeSet<>(known));
      }
    }
    return new ToolArguments(object);
  }

  /** A string argument, or {@code null} when absent or JSON null. */
  String optionalString(String name) {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isString()) {
      throw invalid(name + " must be a string");
    }
    return value.stringValue();
  }

  /** A string argument that must be present. */
  String requiredString(String name) {
    String value = optionalString(name);
    if (value == null) {
      throw invalid(name + " is required");
    }
    return value;
  }

  /** A boolean argument, or {@code null}. */
  Boolean optionalBoolean(String name) {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isBoolean()) {
      throw invalid(name + " must be true or false");
    }
    return value.booleanValue();
  }

  /** An integer argument within bounds, or {@code null}. */
  Integer optionalInt(String name, int min, int max) {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw invalid(name + " must be an integer");
    }
    int number = value.intValue();
    if (number < min || number > max) {
      throw invalid(name + " must be between " + min + " and " + max + ", got " + number);
    }
    return number;
  }

  /** The raw value of an argument, or {@code null}. */
  JsonNode raw(String name) {
    return node.get(name);
  }

  static ToolException invalid(String message) {
    return new ToolException(ToolException.Kind.INVALID_ARGUMENT, message);
  }
}
