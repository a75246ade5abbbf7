package dev.memstack.vector;

import dev.memstack.spi.Turn;
import dev.memstack.vector.store.MemoryRecord;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Key expansion for turns: remembers the last user message of each conversation (per agent and
 * owner), so that the next turn's records are embedded together with the message before them
 * ({@link MemoryRecord#CONTEXT}) while their text stays the message alone. A reply such as "Yes,
 * twice!" is then found by the question it answered. Turns arrive in order per provider, so the
 * message before is the one delivered before; after a restart a conversation's first turn has no
 * context. Bounded (least recently used conversations are forgotten). Thread-safe.
 */
final class ConversationContexts {

  private static final int MAX_CONVERSATIONS = 10_000;

  private final int maxChars;
  private final Map<String, String> lastTurn = lru();
  private final Map<String, String> last = lru();

  ConversationContexts(int maxChars) {
    this.maxChars = maxChars;
  }

  /**
   * The message before {@code turn} in its conversation, cut to the configured length, or {@code
   * null}; then remembers this turn's user message as the one before the next.
   */
  synchronized String before(Turn turn) {
    if (maxChars == 0) {
      return null;
    }
    String key = key(turn);
    String before = last.get(key);
    String message = turn.userMessage().strip();
    if (!message.isEmpty()) {
      last.put(key, cut(message));
    }
    return before;
  }

  /**
   * The id of the turn delivered before {@code turn} in its conversation (per agent and owner), or
   * {@code null} for the first one since start; then remembers {@code turn} as the one before the
   * next. A turn delivered again (at least once) does not make itself its own predecessor.
   */
  synchronized String previousTurn(Turn turn) {
    String key = key(turn);
    String previous = lastTurn.get(key);
    if (turn.turnId().equals(previous)) {
      return null;
    }
    lastTurn.put(key, turn.turnId());
    return previous;
  }

  /** A map that forgets its least recently used conversations past {@code MAX_CONVERSATIONS}. */
  private static Map<String, String> lru() {
    return new LinkedHashMap<>(256, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
        return size() > MAX_CONVERSATIONS;
      }
    };
  }

  private static String key(Turn turn) {
    return turn.agent().value()
        + "\u0000"
        + turn.owner().value()
        + "\u0000"
        + turn.conversationId();
  }

  /** {@code record} with {@code context} in its metadata; unchanged for none or a reply record. */
  static MemoryRecord withContext(MemoryRecord record, String context) {
    if (context == null || !"user".equals(record.extra().get("role"))) {
      return record;
    }
    return record.withExtra(MemoryRecord.CONTEXT, context);
  }

  private String cut(String message) {
    String flat = message.replaceAll("\\s+", " ");
    if (flat.length() <= maxChars) {
      return flat;
    }
    int cut = flat.length() - maxChars; // keep the end: it leads into the next message
    if (Character.isLowSurrogate(flat.charAt(cut))) {
      cut++;
    }
    return "…" + flat.substring(cut);
  }
}
