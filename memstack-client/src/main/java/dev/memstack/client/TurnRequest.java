package dev.memstack.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Objects;

/**
 * The body of {@code POST /api/v1/agents/{agentId}/memory/turns}: one finished exchange.
 *
 * @param ownerKey the end user who spoke; required
 * @param conversationId the conversation; required
 * @param userMessage what the user said; never {@code null}
 * @param assistantReply what the model answered; never {@code null} (not both empty)
 * @param triggerSource where the turn came from; required
 * @param turnId the idempotency key (the same id handed in twice is stored once); {@code null} lets
 *     the host generate one
 * @param time when the turn happened; {@code null} means now
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TurnRequest(
    String ownerKey,
    String conversationId,
    String userMessage,
    String assistantReply,
    TriggerSource triggerSource,
    String turnId,
    Instant time) {

  public TurnRequest {
    Objects.requireNonNull(ownerKey, "ownerKey");
    Objects.requireNonNull(conversationId, "conversationId");
    Objects.requireNonNull(userMessage, "userMessage");
    Objects.requireNonNull(assistantReply, "assistantReply");
    Objects.requireNonNull(triggerSource, "triggerSource");
  }

  /** A turn with a host-generated id, happening now. */
  public static TurnRequest of(
      String ownerKey,
      String conversationId,
      String userMessage,
      String assistantReply,
      TriggerSource triggerSource) {
    return new TurnRequest(
        ownerKey, conversationId, userMessage, assistantReply, triggerSource, null, null);
  }

  /** A copy with an idempotency key. */
  public TurnRequest withTurnId(String newTurnId) {
    return new TurnRequest(
        ownerKey, conversationId, userMessage, assistantReply, triggerSource, newTurnId, time);
  }
}
