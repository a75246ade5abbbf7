package dev.memstack.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * One finished exchange of a conversation, handed to every provider after the reply.
 *
 * <p>The host strips any {@code <memory-context>} block from {@code userMessage} before a provider
 * sees the turn, so recalled memory is never stored again as new memory. A provider may be given
 * the same turn more than once (delivery is at least once); it must store it only once, keyed by
 * {@link #agent()}, {@link #owner()} and {@link #turnId()}.
 *
 * @param turnId id of the turn, the idempotency key within one agent and owner (the same id from
 *     two owners names two turns); 1-128 characters, no slashes
 * @param agent the agent, never {@code null}
 * @param owner the end user who spoke, never {@code null}
 * @param conversationId the conversation, never {@code null}
 * @param userMessage what the user said, never {@code null}, may be empty
 * @param assistantReply what the agent answered, never {@code null}, may be empty
 * @param triggerSource what started the conversation, never {@code null}
 * @param time when the turn happened, never {@code null}
 */
public record Turn(
    String turnId,
    AgentId agent,
    OwnerKey owner,
    String conversationId,
    String userMessage,
    String assistantReply,
    TriggerSource triggerSource,
    Instant time) {

  /** Longest accepted user message or reply, in characters. */
  public static final int MAX_MESSAGE_LENGTH = 200_000;

  /**
   * @throws IllegalArgumentException if an id is malformed, both messages are empty, or a message
   *     is longer than {@value #MAX_MESSAGE_LENGTH} characters
   */
  public Turn {
    Objects.requireNonNull(turnId, "turnId");
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(conversationId, "conversationId");
    Objects.requireNonNull(triggerSource, "triggerSource");
    Objects.requireNonNull(time, "time");
    Conversations.checkId(turnId, "turnId");
    Conversations.check(conversationId);
    Validation.requireText(userMessage, "userMessage", MAX_MESSAGE_LENGTH);
    Validation.requireText(assistantReply, "assistantReply", MAX_MESSAGE_LENGTH);
    if (userMessage.isBlank() && assistantReply.isBlank()) {
      throw new IllegalArgumentException("userMessage and assistantReply are both empty");
    }
  }
}
