package dev.memstack.springai;

import dev.memstack.client.ConversationTurn;
import dev.memstack.client.ConversationWindow;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * How {@link MemstackChatMemoryRepository} reads a message list Spring AI hands it: which messages
 * may become turns, how they pair into turns, which of them the host already has, and the ids of
 * the new ones.
 */
final class ChatTurns {

  /** The start of the block recalled memory arrives in; a message holding it is never stored. */
  static final String FENCE = "<memory-context>";

  /** What the host's conversation log appends to a message it cut. */
  private static final String CUT_MARK = " …";

  private ChatTurns() {}

  /** One exchange: the user's message (or messages, joined) and the answer to it. */
  record Pair(String userMessage, String assistantReply) {}

  /** The pairs of a list, and the user messages after the last pair that wait for an answer. */
  record Reading(List<Pair> pairs, List<Message> unanswered) {}

  /**
   * Pairs each user message (consecutive ones together) with the next assistant message that has
   * text. System and tool messages, tool-call requests without text, the window's summary and every
   * message holding a {@code <memory-context>} fence are never part of a pair; a user message
   * holding a fence takes its answer out with it, and an answer without a question before it in the
   * list (its question was trimmed away) is left out.
   */
  static Reading read(List<Message> messages) {
    List<Pair> pairs = new ArrayList<>();
    List<Message> question = new ArrayList<>();
    boolean tainted = false;
    for (Message message : messages) {
      if (message instanceof UserMessage user) {
        String text = text(user);
        if (text.startsWith(ConversationWindow.SUMMARY_PREFIX)) {
          continue;
        }
        if (text.contains(FENCE)) {
          tainted = true;
          continue;
        }
        if (!text.isBlank()) {
          question.add(user);
        }
      } else if (message instanceof AssistantMessage assistant) {
        String text = text(assistant);
        if (text.isBlank()) {
          continue; // a tool-call request: the answer comes later
        }
        if (!tainted && !question.isEmpty() && !text.contains(FENCE)) {
          pairs.add(new Pair(join(question), text));
        }
        question.clear();
        tainted = false;
      }
      // system and tool messages are never stored, and do not break a pair
    }
    return new Reading(List.copyOf(pairs), tainted ? List.of() : List.copyOf(question));
  }

  /**
   * The pairs the host does not have yet. The list Spring AI saves is what the repository read from
   * the host (the newest kept turns, maybe trimmed at the front) followed by what is new, so the
   * pairs up to and including the host's newest turn are a tail of the host's kept turns: the last
   * position where they line up that way ends what the host has. When no position does (the list
   * was trimmed past the host's newest turn, or holds exchanges the host never saw), the new pairs
   * are those that match none of the host's kept turns.
   */
  static List<Pair> newPairs(List<Pair> pairs, List<ConversationTurn> stored) {
    if (stored.isEmpty()) {
      return pairs;
    }
    for (int i = pairs.size() - 1; i >= 0; i--) {
      if (alignedAt(pairs, i, stored)) {
        return List.copyOf(pairs.subList(i + 1, pairs.size()));
      }
    }
    return pairs.stream().filter(p -> stored.stream().noneMatch(t -> matches(p, t))).toList();
  }

  /** Whether {@code pairs[0..i]} are the host's newest {@code i + 1} turns, in order. */
  private static boolean alignedAt(List<Pair> pairs, int i, List<ConversationTurn> stored) {
    if (i >= stored.size()) {
      return false;
    }
    for (int k = 0; k <= i; k++) {
      if (!matches(pairs.get(i - k), stored.get(stored.size() - 1 - k))) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code turn} is {@code pair} as the host's log keeps it (messages maybe cut). */
  static boolean matches(Pair pair, ConversationTurn turn) {
    return same(pair.userMessage(), turn.userMessage())
        && same(pair.assistantReply(), turn.assistantReply());
  }

  private static boolean same(String sent, String kept) {
    if (sent.equals(kept)) {
      return true;
    }
    return kept.endsWith(CUT_MARK)
        && sent.length() > kept.length() - CUT_MARK.length()
        && sent.startsWith(kept.substring(0, kept.length() - CUT_MARK.length()));
  }

  /**
   * The id of a new turn: a hash of the conversation, the id of the turn before it (the host's
   * newest turn for the first new one, {@code ""} when the host has none) and its messages, so the
   * same list saved again, or a save retried after a partial failure, yields the same ids.
   */
  static String turnId(String conversationId, String previousTurnId, Pair pair) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String part :
          List.of(conversationId, previousTurnId, pair.userMessage(), pair.assistantReply())) {
        sha.update(part.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
      }
      return "chat-" + HexFormat.of().formatHex(sha.digest()).substring(0, 40);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  private static String join(List<Message> question) {
    List<String> texts = question.stream().map(ChatTurns::text).toList();
    return String.join("\n\n", texts);
  }

  static String text(Message message) {
    String text = message.getText();
    return text == null ? "" : text;
  }
}
