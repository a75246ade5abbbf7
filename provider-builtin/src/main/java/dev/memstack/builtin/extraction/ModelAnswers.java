package dev.memstack.builtin.extraction;

import dev.memstack.support.JsonAnswers;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads the extraction and dreaming answers out of a chat model's text: the JSON object is found by
 * {@link JsonAnswers} (bare, fenced or with prose around it); fields that are missing or of the
 * wrong type read as empty or false.
 */
public final class ModelAnswers {

  private ModelAnswers() {}

  /**
   * The extraction answer: {@code should_update, reason, daily_entry, memory_update,
   * profile_update}.
   */
  public record Summary(
      boolean shouldUpdate,
      String reason,
      String dailyEntry,
      String memoryUpdate,
      String profileUpdate) {}

  /** The dreaming answer: {@code should_update, reason, memory_content}. */
  public record Emergence(boolean shouldUpdate, String reason, String memoryContent) {}

  /** The extraction answer, or empty when the text holds no JSON object. */
  public static Optional<Summary> summary(String answer) {
    return JsonAnswers.object(answer)
        .map(
            o ->
                new Summary(
                    bool(o, "should_update"),
                    text(o, "reason"),
                    text(o, "daily_entry"),
                    text(o, "memory_update"),
                    text(o, "profile_update")));
  }

  /** The dreaming answer, or empty when the text holds no JSON object. */
  public static Optional<Emergence> emergence(String answer) {
    return JsonAnswers.object(answer)
        .map(
            o ->
                new Emergence(
                    bool(o, "should_update"), text(o, "reason"), text(o, "memory_content")));
  }

  private static boolean bool(ObjectNode o, String field) {
    JsonNode value = o.get(field);
    if (value == null) {
      return false;
    }
    if (value.isBoolean()) {
      return value.booleanValue();
    }
    return value.isString() && value.stringValue().strip().equalsIgnoreCase("true");
  }

  private static String text(ObjectNode o, String field) {
    JsonNode value = o.get(field);
    if (value == null || value.isNull()) {
      return "";
    }
    if (value.isString()) {
      return value.stringValue().strip();
    }
    if (value.isArray()) {
      StringBuilder lines = new StringBuilder();
      value.forEach(item -> lines.append("- ").append(itemText(item)).append('\n'));
      return lines.toString().strip();
    }
    return value.isValueNode() ? value.asString() : "";
  }

  /** A list item as text: {@code null} for a JSON null, empty for an object or array. */
  private static String itemText(JsonNode item) {
    if (item.isNull()) {
      return "null";
    }
    return item.isValueNode() ? item.asString() : "";
  }
}
