package dev.memstack.client;

import java.time.Instant;

/**
 * One turn of a {@link Conversation}, as the host's conversation log keeps it (each message cut at
 * the log's limit, the {@code <memory-context>} block stripped from the user's message).
 *
 * @param turnId the turn's id
 * @param ownerKey the owner who spoke
 * @param userMessage what the user said
 * @param assistantReply what the agent answered
 * @param triggerSource {@code web}, {@code channel}, {@code api} or {@code cron}
 * @param time when the turn happened
 */
public record ConversationTurn(
    String turnId,
    String ownerKey,
    String userMessage,
    String assistantReply,
    String triggerSource,
    Instant time) {

  public ConversationTurn {
    userMessage = userMessage == null ? "" : userMessage;
    assistantReply = assistantReply == null ? "" : assistantReply;
  }
}
