package dev.memstack.builtin.extraction;

import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads the JSON object out of a chat model's answer, as models write it: bare, inside a {@code
 * ```json} fence, or with prose before and after. The first balanced {@code {...}} that parses as
 * an object wins; fields that are missing or of the wrong type read as empty or false.
 */
public final class ModelAnswers {

  private static final JsonMapper JSON = JsonMapper.builder().build();

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
    return object(answer)
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
    return object(answer)
        .map(
            o ->
                new Emergence(
                    bool(o, "should_update"), text(o, "reason"), text(o, "memory_content")));
  }

  /** The first JSON object in {@code answer}. */
  static Optional<ObjectNode> object(String answer) {
    if (answer == null) {
      return Optional.empty();
    }
    String text = answer.strip();
    int fence = text.indexOf("```");
    if (fence >= 0) {
      int bodyStart = text.indexOf('\n', fence);
      int end = bodyStart < 0 ? -1 : text.indexOf("```", bodyStart);
      if (bodyStart >= 0 && end > bodyStart) {
        Optional<ObjectNode> fenced = scan(text.substring(bodyStart + 1, end));
        if (fenced.isPresent()) {
          return fenced;
        }
      }
    }
    return scan(text);
  }

  private static Optional<ObjectNode> scan(String text) {
    for (int start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
      int end = matchingBrace(text, start);
      if (end < 0) {
        continue;
      }
      try {
        JsonNode node = JSON.readTree(text.substring(start, end + 1));
        if (node instanceof ObjectNode object) {
          return Optional.of(object);
        }
      } catch (JacksonException e) {
        // not this one; try the next opening brace
      }
    }
    return Optional.empty();
  }

  /** The index of the brace that closes the one at {@code start}, skipping JSON strings. */
  private static int matchingBrace(String text, int start) {
    int depth = 0;
    boolean inString = false;
    for (int i = start; i < text.length(); i++) {
      char c = text.charAt(i);
      if (inString) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == '{') {
        depth++;
      } else if (c == '}') {
        depth--;
        if (depth == 0) {
          return i;
        }
      }
    }
    return -1;
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
