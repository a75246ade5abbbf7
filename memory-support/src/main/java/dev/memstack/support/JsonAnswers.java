package dev.memstack.support;

import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Finds the JSON in a chat model's answer, as models write it: bare, inside a Markdown code fence
 * ({@code ```json}), or with prose before and after. The fenced body is tried first, then the whole
 * text; the first balanced object (or array, where asked) that parses wins, JSON strings respected.
 * Needs Jackson 3 on the class path (optional for this library, as for {@link ToolArguments}).
 */
public final class JsonAnswers {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private JsonAnswers() {}

  /** The first JSON object in {@code answer}, or empty when there is none that parses. */
  public static Optional<ObjectNode> object(String answer) {
    return find(answer, false).map(ObjectNode.class::cast);
  }

  /** The first JSON object or array in {@code answer}, or empty when there is none that parses. */
  public static Optional<JsonNode> value(String answer) {
    return find(answer, true);
  }

  private static Optional<JsonNode> find(String answer, boolean arrays) {
    if (answer == null || answer.isBlank()) {
      return Optional.empty();
    }
    String text = answer.strip();
    int fence = text.indexOf("```");
    if (fence >= 0) {
      int bodyStart = text.indexOf('\n', fence);
      int end = bodyStart < 0 ? -1 : text.indexOf("```", bodyStart);
      if (bodyStart >= 0 && end > bodyStart) {
        Optional<JsonNode> fenced = scan(text.substring(bodyStart + 1, end), arrays);
        if (fenced.isPresent()) {
          return fenced;
        }
      }
    }
    return scan(text, arrays);
  }

  private static Optional<JsonNode> scan(String text, boolean arrays) {
    for (int start = 0; start < text.length(); start++) {
      char c = text.charAt(start);
      if (c != '{' && !(arrays && c == '[')) {
        continue;
      }
      int end = balancedEnd(text, start);
      if (end < 0) {
        continue;
      }
      try {
        JsonNode node = JSON.readTree(text.substring(start, end + 1));
        if (node != null && (node.isObject() || (arrays && node.isArray()))) {
          return Optional.of(node);
        }
      } catch (JacksonException e) {
        // not JSON after all (a brace in prose): try the next opening bracket
      }
    }
    return Optional.empty();
  }

  /** The index of the bracket closing the one at {@code start}, strings respected; -1 if none. */
  private static int balancedEnd(String text, int start) {
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
      } else if (c == '{' || c == '[') {
        depth++;
      } else if (c == '}' || c == ']') {
        depth--;
        if (depth == 0) {
          return i;
        }
      }
    }
    return -1;
  }
}
