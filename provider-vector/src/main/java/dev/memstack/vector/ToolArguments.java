package dev.memstack.vector;

import dev.memstack.spi.ToolException;
import dev.memstack.support.ToolArgumentErrors;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON arguments of one tool call, read with errors that name the argument ({@link
 * ToolException#field()}, from {@link ToolArgumentErrors}).
 */
final class ToolArguments {

  private final JsonNode node;

  private ToolArguments(JsonNode node) {
    this.node = node;
  }

  /**
   * Parses {@code json} (blank = no arguments) and rejects names outside {@code allowed}.
   *
   * @throws ToolException INVALID_ARGUMENT for malformed JSON or an unknown argument
   */
  static ToolArguments parse(JsonMapper json, String arguments, Set<String> allowed) {
    JsonNode node;
    try {
      node = arguments.isBlank() ? json.createObjectNode() : json.readTree(arguments);
    } catch (JacksonException e) {
      throw ToolArgumentErrors.unreadable("are not valid JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw ToolArgumentErrors.unreadable("must be a JSON object");
    }
    ToolArgumentErrors.requireKnown(node.propertyNames(), allowed);
    return new ToolArguments(node);
  }

  Optional<String> text(String name) {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isString()) {
      throw ToolArgumentErrors.mustBe(name, "a string");
    }
    String text = value.stringValue();
    return text.isBlank() ? Optional.empty() : Optional.of(text);
  }

  String requiredText(String name) {
    return text(name).orElseThrow(() -> ToolArgumentErrors.required(name));
  }

  int integer(String name, int fallback, int min, int max) {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      return fallback;
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
      for (int i = 0; i < value.size(); i++) {
        JsonNode element = value.get(i);
        if (!element.isString()) {
          throw ToolArgumentErrors.mustBe(ToolArgumentErrors.element(name, i), "a string");
        }
        if (!element.stringValue().isBlank()) {
          out.add(element.stringValue().trim());
        }
      }
      return out;
    }
    throw ToolArgumentErrors.mustBe(name, "a string or a list of strings");
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
                throw ToolArgumentErrors.mustBe(
                    name,
                    "an ISO date (2026-03-02) or instant (2026-03-02T10:00:00Z),"
                        + " got '"
                        + t
                        + "'");
              }
            });
  }

  /** An invalid argument {@code field}: {@code <field> <problem>}. */
  static ToolException invalid(String field, String problem) {
    return ToolArgumentErrors.invalid(field, problem);
  }
}
