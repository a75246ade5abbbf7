package dev.memstack.host.conversation;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.time.Instant;
import java.util.Objects;

/**
 * One turn of the conversation log.
 *
 * @param turnId the turn id, never {@code null}
 * @param agent the agent, never {@code null}
 * @param owner the owner who spoke, never {@code null}
 * @param conversationId the conversation, never {@code null}
 * @param userMessage what the user said (any memory-context block removed), never {@code null}
 * @param assistantReply the agent's answer, never {@code null}
 * @param triggerSource {@code web}, {@code channel}, {@code api} or {@code cron}
 * @param time when the turn happened
 */
public record LoggedTurn(
    String turnId,
    AgentId agent,
    OwnerKey owner,
    String conversationId,
    String userMessage,
    String assistantReply,
    String triggerSource,
    Instant time) {

  public LoggedTurn {
    Objects.requireNonNull(turnId, "turnId");
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(conversationId, "conversationId");
    Objects.requireNonNull(userMessage, "userMessage");
    Objects.requireNonNull(assistantReply, "assistantReply");
    Objects.requireNonNull(triggerSource, "triggerSource");
    Objects.requireNonNull(time, "time");
  }
}
