package dev.memstack.builtin.tools;

import dev.memstack.spi.ToolException;
import dev.memstack.support.ToolArgumentErrors;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool call's JSON arguments with typed, checked access. Every problem is a {@link ToolException}
 * of kind {@code INVALID_ARGUMENT} that names the argument ({@link ToolException#field()}, and the
 * start of the message), from {@link ToolArgumentErrors}.
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
      throw ToolArgumentErrors.unreadable("are not valid JSON: " + e.getOriginalMessage());
    }
    if (parsed == null || parsed.isNull() || parsed.isMissingNode()) {
      parsed = mapper.createObjectNode();
    }
    if (!(parsed instanceof ObjectNode object)) {
      throw ToolArgumentErrors.unreadable("must be a JSON object");
    }
    ToolArgumentErrors.requireKnown(object.propertyNames(), known);
    return new ToolArguments(object);
  }

  /** A string argument, or {@code null} when absent or JSON null. */
  String optionalString(String name) {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isString()) {
      throw ToolArgumentErrors.mustBe(name, "a string");
    }
    return value.stringValue();
  }

  /** A string argument that must be present. */
  String requiredString(String name) {
    String value = optionalString(name);
    if (value == null) {
      throw ToolArgumentErrors.required(name);
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
      throw ToolArgumentErrors.mustBe(name, "true or false");
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
      throw ToolArgumentErrors.mustBe(name, "an integer");
    }
    int number = value.intValue();
    if (number < min || number > max) {
      throw ToolArgumentErrors.outOfRange(name, min, max, number);
    }
    return number;
  }

  /** The raw value of an argument, or {@code null}. */
  JsonNode raw(String name) {
    return node.get(name);
  }

  /** An invalid argument {@code field}; {@code message} says what is wrong and names it. */
  static ToolException invalid(String field, String message) {
    return ToolException.invalidArgument(field, message);
  }
}
