package dev.memstack.host.stack;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A finished turn as an integrator hands it in, checked here, once, field by field ({@link
 * InvalidRequestException} names the field), by the rules of the {@link Turn} the stack builds from
 * it. The user message is stored without its fenced {@code <memory-context>} blocks: they are
 * removed here, before the check that not both messages are empty, so no provider and no
 * conversation log ever sees recalled memory as something the user said. Both messages hold no NUL
 * and no control character other than tab, LF and CR, and the owner key and ids follow the host's
 * identifier rule ({@link RequestChecks}).
 *
 * @param agent the agent, never {@code null}
 * @param owner the end user who spoke (field {@code ownerKey}), never {@code null}
 * @param conversationId the conversation, 1-128 characters, no control characters or slashes
 * @param turnId the idempotency key within this agent and owner (the same id of another owner is
 *     another turn), 1-128 characters like a conversation id; {@code null} makes the stack generate
 *     a UUID
 * @param userMessage what the user said, fenced blocks removed, at most {@value
 *     Turn#MAX_MESSAGE_LENGTH} characters
 * @param assistantReply what the agent answered, at most {@value Turn#MAX_MESSAGE_LENGTH}
 *     characters; not both messages empty
 * @param triggerSource what started the conversation, never {@code null}
 * @param time when the turn happened, between the epoch and a day from now; {@code null} means now
 *     (the stack's clock)
 */
public record TurnRequest(
    AgentId agent,
    OwnerKey owner,
    String conversationId,
    String turnId,
    String userMessage,
    String assistantReply,
    TriggerSource triggerSource,
    Instant time) {

  public TurnRequest {
    Objects.requireNonNull(agent, "agent");
    RequestChecks.ownerKey("ownerKey", RequestChecks.required("ownerKey", owner).value());
    RequestChecks.id("conversationId", conversationId);
    if (turnId != null) {
      RequestChecks.id("turnId", turnId);
    }
    userMessage =
        MemoryContextFence.stripBlocks(
            RequestChecks.message("userMessage", userMessage, Turn.MAX_MESSAGE_LENGTH));
    RequestChecks.message("assistantReply", assistantReply, Turn.MAX_MESSAGE_LENGTH);
    if (userMessage.isBlank() && assistantReply.isBlank()) {
      throw new InvalidRequestException(
          "userMessage", "userMessage and assistantReply are both empty");
    }
    RequestChecks.required("triggerSource", triggerSource);
    if (time != null) {
      Instant latest = Instant.now().plus(Duration.ofDays(1));
      if (time.isBefore(Instant.EPOCH) || time.isAfter(latest)) {
        throw new InvalidRequestException(
            "time", "time must lie between 1970-01-01T00:00:00Z and a day from now, got: " + time);
      }
    }
  }

  /** A turn with a generated id, happening now. */
  public static TurnRequest of(
      AgentId agent,
      OwnerKey owner,
      String conversationId,
      String userMessage,
      String assistantReply,
      TriggerSource triggerSource) {
    return new TurnRequest(
        agent, owner, conversationId, null, userMessage, assistantReply, triggerSource, null);
  }
}
