package dev.memstack.builtin.extraction;

import dev.memstack.support.JsonAnswers;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads the extraction, dreaming, consolidation and SOUL answers out of a chat model's text: the
 * JSON object is found by {@link JsonAnswers} (bare, fenced or with prose around it); fields that
 * are missing or of the wrong type read as empty or false.
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

  /** One entry of a consolidation answer: its file, its {@code ##} section and its text. */
  public record ConsolidatedEntry(String file, String section, String text) {}

  /**
   * The structured consolidation answer: {@code reason}, {@code merged} (what was merged, one line
   * each) and {@code entries} (the complete new list).
   */
  public record Consolidation(String reason, List<String> merged, List<ConsolidatedEntry> entries) {

    public Consolidation {
      merged = List.copyOf(merged);
      entries = List.copyOf(entries);
    }
  }

  /** The SOUL answer: {@code should_update, reason, soul_content}. */
  public record Soul(boolean shouldUpdate, String reason, String soulContent) {}

  /**
   * The consolidation answer, or empty when the text holds no JSON object, {@code entries} is not
   * an array, or an entry is not an object with a non-empty string {@code text} (a string {@code
   * file}; {@code section} a string or missing, for {@code ""}).
   */
  public static Optional<Consolidation> consolidation(String answer) {
    Optional<ObjectNode> parsed = JsonAnswers.object(answer);
    if (parsed.isEmpty()) {
      return Optional.empty();
    }
    ObjectNode o = parsed.get();
    JsonNode entries = o.get("entries");
    if (entries == null || !entries.isArray()) {
      return Optional.empty();
    }
    List<ConsolidatedEntry> list = new ArrayList<>();
    for (JsonNode item : entries) {
      if (!item.isObject()) {
        return Optional.empty();
      }
      JsonNode file = item.get("file");
      JsonNode section = item.get("section");
      JsonNode text = item.get("text");
      if (file == null
          || !file.isString()
          || text == null
          || !text.isString()
          || text.stringValue().isBlank()
          || (section != null && !section.isNull() && !section.isString())) {
        return Optional.empty();
      }
      list.add(
          new ConsolidatedEntry(
              file.stringValue().strip(),
              section == null || section.isNull() ? "" : section.stringValue().strip(),
              text.stringValue().strip()));
    }
    List<String> merged = new ArrayList<>();
    JsonNode mergedNode = o.get("merged");
    if (mergedNode != null && mergedNode.isArray()) {
      mergedNode.forEach(
          item -> {
            if (item.isValueNode() && !item.isNull()) {
              merged.add(item.asString());
            }
          });
    } else if (mergedNode != null && mergedNode.isString()) {
      merged.add(mergedNode.stringValue());
    }
    return Optional.of(new Consolidation(text(o, "reason"), merged, list));
  }

  /** The SOUL answer, or empty when the text holds no JSON object. */
  public static Optional<Soul> soul(String answer) {
    return JsonAnswers.object(answer)
        .map(o -> new Soul(bool(o, "should_update"), text(o, "reason"), text(o, "soul_content")));
  }

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
