package dev.memstack.vector;

import dev.memstack.spi.ToolException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The JSON arguments of one tool call, read with errors that name the argument. */
final class ToolArguments {

  private final String tool;
  private final JsonNode node;

  private ToolArguments(String tool, JsonNode node) {
    this.tool = tool;
    this.node = node;
  }

  /**
   * Parses {@code json} (blank = no arguments) and rejects names outside {@code allowed}.
   *
   * @throws ToolException INVALID_ARGUMENT for malformed JSON or an unknown argument
   */
  static ToolArguments parse(JsonMapper json, String tool, String arguments, Set<String> allowed) {
    JsonNode node;
    try {
      node = arguments.isBlank() ? json.createObjectNode() : json.readTree(arguments);
    } catch (JacksonException e) {
      throw invalid(tool, "arguments are not valid JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw invalid(tool, "arguments must be a JSON object");
    }
    for (String name : node.propertyNames()) {
      if (!allowed.contains(name)) {
        throw invalid(tool, "unknown argument '" + name + "'; accepted: " + new TreeSet<>(allowed));
      }
    }
    return new ToolArguments(tool, node);
  }

  Optional<String> text(String name) {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isString()) {
      throw invalid(tool, "argument '" + name + "' must be a string");
    }
    String text = value.stringValue();
    return text.isBlank() ? Optional.empty() : Optional.of(text);
  }

  String requiredText(String name) {
    return text(name).orElseThrow(() -> invalid(tool, "argument '" + name + "' is required"));
  }

  int integer(String name, int fallback, int min, int max) {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw invalid(tool, "argument '" + name + "' must be an integer");
    }
    int number = value.intValue();
    if (number < min || number > max) {
      throw invalid(
          tool,
          "argument '" + name + "' must be between " + min + " and " + max + ", got " + number);
    }
    return number;
  }

  /** A string or an array of strings; empty when absent. */
  List<String> texts(String name) {
    JsonNode value = node.get(name);
    List<String> out = new ArrayList<>();
    if (value == null || value.isNull()) {
      return out;
    }
    if (value.isString()) {
      if (!value.stringValue().isBlank()) {
        out.add(value.stringValue().trim());
      }
      return out;
    }
    if (value.isArray()) {
      for (JsonNode element : value) {
        if (!element.isString()) {
          throw invalid(tool, "argument '" + name + "' must be a string or a list of strings");
        }
        if (!element.stringValue().isBlank()) {
          out.add(element.stringValue().trim());
        }
      }
      return out;
    }
    throw invalid(tool, "argument '" + name + "' must be a string or a list of strings");
  }

  /** An ISO instant or an ISO date (start of that day, UTC). */
  Optional<Instant> time(String name) {
    return text(name)
        .map(
            text -> {
              String t = text.trim();
              try {
                if (t.length() == 10) {
                  return LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant();
                }
                return Instant.parse(t);
              } catch (DateTimeParseException e) {
                throw invalid(
                    tool,
                    "argument '"
                        + name
                        + "' must be an ISO date (2026-03-02) or instant (2026-03-02T10:00:00Z),"
                        + " got '"
                        + t
                        + "'");
              }
            });
  }

  static ToolException invalid(String tool, String message) {
    return new ToolException(ToolException.Kind.INVALID_ARGUMENT, tool + ": " + message);
  }
}
