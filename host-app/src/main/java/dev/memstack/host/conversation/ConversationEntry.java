package dev.memstack.host.conversation;

import dev.memstack.spi.OwnerKey;
import java.time.Instant;
import java.util.Objects;

/**
 * One turn as the conversation log keeps it and reads it back: the {@link dev.memstack.spi.Turn}
 * the stack accepted, without the agent and conversation the log files it under, its messages cut
 * at the log's limit.
 *
 * @param turnId the turn id, never {@code null}
 * @param owner the owner who spoke, never {@code null}
 * @param userMessage what the user said (fenced blocks removed), never {@code null}
 * @param assistantReply the agent's answer, never {@code null}
 * @param triggerSource {@code web}, {@code channel}, {@code api} or {@code cron}
 * @param time when the turn happened, never {@code null}
 */
public record ConversationEntry(
    String turnId,
    OwnerKey owner,
    String userMessage,
    String assistantReply,
    String triggerSource,
    Instant time) {

  public ConversationEntry {
    Objects.requireNonNull(turnId, "turnId");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(userMessage, "userMessage");
    Objects.requireNonNull(assistantReply, "assistantReply");
    Objects.requireNonNull(triggerSource, "triggerSource");
    Objects.requireNonNull(time, "time");
  }

  /** The entry of {@code turn}, each message cut at {@code maxMessageChars}. */
  static ConversationEntry of(dev.memstack.spi.Turn turn, int maxMessageChars) {
    return new ConversationEntry(
        turn.turnId(),
        turn.owner(),
        cut(turn.userMessage(), maxMessageChars),
        cut(turn.assistantReply(), maxMessageChars),
        turn.triggerSource().wireName(),
        turn.time());
  }

  private static String cut(String text, int maxChars) {
    return text.length() <= maxChars ? text : text.substring(0, maxChars) + " …";
  }
}
