package dev.memstack.builtin.store;

import dev.memstack.builtin.store.ConversationBuffer.Message;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * The one JSON form of a conversation's messages, which every buffer stores: an array of {@code
 * {"turnId", "role", "text", "truncated", "time"}} objects ({@code time} as ISO-8601).
 */
public final class ConversationJson {

  private ConversationJson() {}

  /** Appends {@code messages} to {@code array}. */
  public static void write(ArrayNode array, List<Message> messages) {
    for (Message m : messages) {
      array
          .addObject()
          .put("turnId", m.turnId())
          .put("role", m.role())
          .put("text", m.text())
          .put("truncated", m.truncated())
          .put("time", m.time().toString());
    }
  }

  /**
   * The messages of {@code array}.
   *
   * @throws java.time.format.DateTimeParseException if a time is not ISO-8601
   * @throws NullPointerException if a message lacks a field
   */
  public static List<Message> read(JsonNode array) {
    List<Message> messages = new ArrayList<>();
    for (JsonNode m : array) {
      messages.add(
          new Message(
              m.path("turnId").asString(),
              m.path("role").asString(),
              m.path("text").asString(),
              m.path("truncated").asBoolean(false),
              Instant.parse(m.path("time").asString())));
    }
    return messages;
  }
}
