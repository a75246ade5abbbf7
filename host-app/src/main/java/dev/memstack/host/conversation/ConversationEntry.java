package dev.memstack.host.conversation;

import dev.memstack.spi.Turn;
import dev.memstack.support.Require;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;

/**
 * One turn as the conversation log keeps it and reads it back, and as {@code GET
 * .../conversations/{conversationId}} shows it (JSON schema {@code TurnView}): the {@link Turn} the
 * stack accepted, without the agent and conversation the log files it under, its messages cut at
 * the log's limit.
 *
 * @param turnId the turn id, never {@code null}
 * @param ownerKey the owner who spoke, never {@code null}
 * @param userMessage what the user said (fenced blocks removed), never {@code null}
 * @param assistantReply the agent's answer, never {@code null}
 * @param triggerSource {@code web}, {@code channel}, {@code api} or {@code cron}
 * @param time when the turn happened, never {@code null}
 */
@Schema(name = "TurnView")
public record ConversationEntry(
    String turnId,
    String ownerKey,
    String userMessage,
    String assistantReply,
    String triggerSource,
    Instant time) {

  public ConversationEntry {
    // what the log reads back it wrote from a checked Turn, so only the keys are checked again
    Require.nonNull("turnId ownerKey time", turnId, ownerKey, time);
  }

  /** The entry of {@code turn}, each message cut at {@code maxMessageChars}. */
  static ConversationEntry of(Turn turn, int maxMessageChars) {
    return new ConversationEntry(
        turn.turnId(),
        turn.owner().value(),
        cut(turn.userMessage(), maxMessageChars),
        cut(turn.assistantReply(), maxMessageChars),
        turn.triggerSource().wireName(),
        turn.time());
  }

  private static String cut(String text, int maxChars) {
    return text.length() <= maxChars ? text : text.substring(0, maxChars) + " …";
  }
}
