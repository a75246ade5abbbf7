package dev.memstack.host.stack;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import java.time.Instant;
import java.util.Objects;

/**
 * A finished turn as an integrator hands it in. The stack turns it into a {@link
 * dev.memstack.spi.Turn}, which checks the id formats and message lengths.
 *
 * @param agent the agent, never {@code null}
 * @param owner the end user who spoke, never {@code null}
 * @param conversationId the conversation, never {@code null}
 * @param turnId the idempotency key within this agent and owner (the same id of another owner is
 *     another turn); {@code null} makes the stack generate a UUID
 * @param userMessage what the user said, never {@code null}; any {@code <memory-context>} block in
 *     it is removed before a provider sees it
 * @param assistantReply what the agent answered, never {@code null}
 * @param triggerSource what started the conversation, never {@code null}
 * @param time when the turn happened; {@code null} means now
 */
public record TurnSubmission(
    AgentId agent,
    OwnerKey owner,
    String conversationId,
    String turnId,
    String userMessage,
    String assistantReply,
    TriggerSource triggerSource,
    Instant time) {

  public TurnSubmission {
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(conversationId, "conversationId");
    Objects.requireNonNull(userMessage, "userMessage");
    Objects.requireNonNull(assistantReply, "assistantReply");
    Objects.requireNonNull(triggerSource, "triggerSource");
  }
}
