package dev.memstack.vector.facts;

import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Finds the JSON in a chat model's answer: a bare object or array, one inside a Markdown code
 * fence, or one with prose before and after it. The first balanced object or array that parses
 * wins.
 */
final class JsonAnswers {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private JsonAnswers() {}

  /** The JSON value in {@code answer}, or empty when there is none that parses. */
  static Optional<JsonNode> parse(String answer) {
    if (answer == null || answer.isBlank()) {
      return Optional.empty();
    }
    for (int start = 0; start < answer.length(); start++) {
      char c = answer.charAt(start);
      if (c != '{' && c != '[') {
        continue;
      }
      int end = balancedEnd(answer, start);
      if (end < 0) {
        continue;
      }
      try {
        JsonNode node = JSON.readTree(answer.substring(start, end + 1));
        if (node != null && (node.isObject() || node.isArray())) {
          return Optional.of(node);
        }
      } catch (JacksonException e) {
        // not JSON after all (e.g. "[1]" in prose that continues with a broken object): go on
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
