package dev.memstack.mem0;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Reads the answer shapes of every Mem0 server generation. Search answers come as {@code
 * {"results":[...]}} (OSS, Platform v3), {@code {"memories":[...]}} or a bare array (Platform v2),
 * possibly with {@code relations} beside them (older OSS servers with a graph store); add answers
 * as {@code {"results":[{"id","memory","event"}]}}, {@code {"results":[{"status":"PENDING",
 * "event_id"}]}} (Platform v1 async) or {@code {"status":"PENDING","event_id"}} (Platform v3).
 * Unknown keys are ignored; a shape that fits none of these is a {@link
 * Mem0Exception.Kind#BAD_RESPONSE}.
 */
final class Mem0Answers {

  private Mem0Answers() {}

  /** The memories of a search answer, in the server's order. */
  static List<Mem0Memory> memories(JsonNode root, String operation) {
    JsonNode list = listOf(root, "memories");
    if (list == null) {
      throw bad(operation, "expected a JSON array or an object with 'results' or 'memories'");
    }
    List<Mem0Memory> memories = new ArrayList<>();
    for (JsonNode item : list) {
      Mem0Memory memory = memory(item);
      if (memory != null) {
        memories.add(memory);
      }
    }
    return memories;
  }

  /** The events of an add answer. */
  static Mem0AddResult addResult(JsonNode root, String operation) {
    List<Mem0AddResult.Event> events = new ArrayList<>();
    if (root != null && root.isObject() && !root.has("results") && root.hasNonNull("status")) {
      events.add(event(root));
    } else {
      JsonNode list = listOf(root, null);
      if (list == null) {
        throw bad(operation, "expected an object with 'results' or 'status', or a JSON array");
      }
      for (JsonNode item : list) {
        if (item.isObject()) {
          events.add(event(item));
        }
      }
    }
    for (Mem0AddResult.Event event : events) {
      if ("FAILED".equalsIgnoreCase(event.status())) {
        throw new Mem0Exception(
            Mem0Exception.Kind.SERVER_ERROR,
            "mem0 " + operation + ": the server reports the add as FAILED",
            200,
            null,
            null,
            null);
      }
    }
    return new Mem0AddResult(events);
  }

  /** The {@code count} field of a paginated listing, or -1. */
  static long count(JsonNode root) {
    if (root != null && root.isObject() && root.path("count").canConvertToLong()) {
      return root.path("count").asLong();
    }
    JsonNode list = listOf(root, "memories");
    return list == null ? -1 : list.size();
  }

  private static JsonNode listOf(JsonNode root, String alternative) {
    if (root == null) {
      return null;
    }
    if (root.isArray()) {
      return root;
    }
    if (root.isObject()) {
      if (root.path("results").isArray()) {
        return root.get("results");
      }
      if (alternative != null && root.path(alternative).isArray()) {
        return root.get(alternative);
      }
    }
    return null;
  }

  private static Mem0Memory memory(JsonNode item) {
    if (!item.isObject()) {
      return null;
    }
    String text = text(item, "memory");
    if (text == null) {
      text = text(item.path("data"), "memory");
    }
    if (text == null || text.isBlank()) {
      return null;
    }
    return new Mem0Memory(
        text(item, "id"),
        text.strip(),
        score(item.get("score")),
        instant(text(item, "created_at")),
        instant(text(item, "updated_at")),
        text(item, "user_id"),
        text(item, "agent_id"),
        scalars(item.get("metadata")));
  }

  private static Mem0AddResult.Event event(JsonNode item) {
    String memory = text(item, "memory");
    if (memory == null) {
      memory = text(item.path("data"), "memory");
    }
    return new Mem0AddResult.Event(
        text(item, "id"),
        upper(text(item, "event")),
        memory,
        upper(text(item, "status")),
        text(item, "event_id"));
  }

  private static String upper(String value) {
    return value == null ? null : value.toUpperCase(Locale.ROOT);
  }

  static String text(JsonNode node, String field) {
    if (node == null || !node.isObject()) {
      return null;
    }
    JsonNode value = node.get(field);
    if (value == null || value.isNull() || value.isContainer()) {
      return null;
    }
    return value.asString();
  }

  private static Double score(JsonNode value) {
    if (value == null || value.isNull()) {
      return null;
    }
    double score;
    if (value.isNumber()) {
      score = value.asDouble();
    } else if (value.isString()) {
      try {
        score = Double.parseDouble(value.asString().trim());
      } catch (NumberFormatException e) {
        return null;
      }
    } else {
      return null;
    }
    return Double.isFinite(score) ? score : null;
  }

  /** Parses the timestamps Mem0 writes: with an offset, with {@code Z}, or zone-less (UTC). */
  static Instant instant(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String s = value.trim();
    try {
      return OffsetDateTime.parse(s).toInstant();
    } catch (DateTimeParseException e) {
      // fall through
    }
    try {
      return LocalDateTime.parse(s).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      // fall through
    }
    try {
      return LocalDateTime.parse(s.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Map<String, String> scalars(JsonNode metadata) {
    if (metadata == null || !metadata.isObject()) {
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> field : metadata.properties()) {
      JsonNode value = field.getValue();
      if (value != null && value.isValueNode() && !value.isNull()) {
        out.put(field.getKey(), value.asString());
      }
    }
    return out;
  }

  private static Mem0Exception bad(String operation, String problem) {
    return new Mem0Exception(
        Mem0Exception.Kind.BAD_RESPONSE,
        "mem0 " + operation + ": unexpected answer: " + problem,
        200,
        null,
        null,
        null);
  }
}
