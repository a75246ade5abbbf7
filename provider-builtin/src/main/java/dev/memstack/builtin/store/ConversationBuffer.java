package dev.memstack.builtin.store;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import dev.memstack.support.Require;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The recent messages of each conversation, kept by the builtin provider itself from {@code
 * syncTurn} so extraction can build a transcript. A conversation is one agent's, one owner's and
 * one conversation id's: the same conversation id of two owners is two conversations. Bounded: at
 * most {@code maxMessages} messages per conversation (the oldest are dropped; the total count is
 * kept) and each message cut at {@code messageMaxChars}. A turn already among the kept messages is
 * not added again. Implementations are thread-safe.
 *
 * <p>Two implementations, chosen with the store: {@code FileConversationBuffer} (JSON files under
 * the data directory, {@code store=files}) and {@code PgConversationBuffer} (rows of the store's
 * database, {@code store=postgres}, shared by every host on it).
 */
public interface ConversationBuffer {

  /** One stored message. */
  record Message(String turnId, String role, String text, boolean truncated, Instant time) {

    public Message {
      Require.nonNull("turnId role text time", turnId, role, text, time);
    }
  }

  /** A conversation's kept messages, oldest first, and how many it had in all. */
  record Conversation(long totalMessages, List<Message> messages) {

    /** No message recorded. */
    public static final Conversation EMPTY = new Conversation(0, List.of());

    public Conversation {
      messages = List.copyOf(messages);
    }
  }

  /**
   * Adds the turn's non-empty user message and reply, atomically: appends of the same conversation,
   * from any thread (and, for a shared store, any host), lose none.
   *
   * @return the conversation after the turn
   */
  Conversation append(Turn turn);

  /** The conversation's kept messages; empty when none were recorded. */
  Conversation read(AgentId agent, OwnerKey owner, String conversationId);

  /**
   * Deletes every conversation of {@code owner}, of every agent, so that nothing of them is left in
   * the buffer's storage.
   *
   * @return how many conversations were removed
   */
  long forget(OwnerKey owner);

  /**
   * {@code current} after {@code turn}: unchanged when the turn is already among its messages, else
   * with the turn's non-blank user message and reply added, each cut at {@code messageMaxChars},
   * and only the last {@code maxMessages} kept. The rule every implementation applies.
   */
  static Conversation appended(
      Conversation current, Turn turn, int maxMessages, int messageMaxChars) {
    if (current.messages().stream().anyMatch(m -> m.turnId().equals(turn.turnId()))) {
      return current;
    }
    List<Message> messages = new ArrayList<>(current.messages());
    long total = current.totalMessages();
    if (!turn.userMessage().isBlank()) {
      messages.add(message(turn, "user", turn.userMessage(), messageMaxChars));
      total++;
    }
    if (!turn.assistantReply().isBlank()) {
      messages.add(message(turn, "assistant", turn.assistantReply(), messageMaxChars));
      total++;
    }
    if (messages.size() > maxMessages) {
      messages = messages.subList(messages.size() - maxMessages, messages.size());
    }
    return new Conversation(total, messages);
  }

  /** The hex SHA-256 of a conversation id: the key under which it is stored. */
  static String key(String conversationId) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(conversationId.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Checks the bounds of an implementation.
   *
   * @throws IllegalArgumentException naming the bound that is not positive
   */
  static void checkBounds(int maxMessages, int messageMaxChars) {
    if (maxMessages < 1) {
      throw new IllegalArgumentException(
          "conversation buffer: maxMessages must be at least 1, was " + maxMessages);
    }
    if (messageMaxChars < 1) {
      throw new IllegalArgumentException(
          "conversation buffer: messageMaxChars must be at least 1, was " + messageMaxChars);
    }
  }

  private static Message message(Turn turn, String role, String text, int messageMaxChars) {
    boolean truncated = text.length() > messageMaxChars;
    String kept = truncated ? text.substring(0, messageMaxChars) : text;
    return new Message(turn.turnId(), role, kept, truncated, turn.time());
  }
}
