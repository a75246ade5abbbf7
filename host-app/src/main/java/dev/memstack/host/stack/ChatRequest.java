package dev.memstack.host.stack;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.util.Objects;

/**
 * A chat message: what the user says next in a conversation, answered by the configured chat model
 * with the whole stack's memory. Checked here, once, field by field.
 *
 * @param agent the agent
 * @param owner the end user (an {@code endUserId} is owner {@code api:<endUserId>})
 * @param conversationId the conversation (1-128 characters, no control characters or slashes)
 * @param message what the user says, not blank, at most {@value Turn#MAX_MESSAGE_LENGTH}
 *     characters; a {@code <memory-context>} block in it is removed
 * @param triggerSource where the message came from; {@code web} unless given
 */
public record ChatRequest(
    AgentId agent,
    OwnerKey owner,
    String conversationId,
    String message,
    TriggerSource triggerSource) {

  public ChatRequest {
    Objects.requireNonNull(agent, "agent");
    RequestChecks.required("ownerKey", owner);
    RequestChecks.id("conversationId", conversationId);
    message =
        MemoryContextFence.stripBlocks(
            RequestChecks.message("message", message, Turn.MAX_MESSAGE_LENGTH));
    if (message.isBlank()) {
      throw new InvalidRequestException("message", "message must not be blank");
    }
    triggerSource = triggerSource == null ? TriggerSource.WEB : triggerSource;
  }

  /**
   * The owner of an {@code endUserId}: {@code api:<endUserId>}, the id kept as written (a large
   * integer id keeps every digit).
   */
  public static OwnerKey endUser(String endUserId) {
    if (endUserId == null || endUserId.isBlank()) {
      throw new InvalidRequestException("endUserId", "endUserId must not be blank");
    }
    try {
      return RequestChecks.ownerKey("endUserId", "api:" + endUserId);
    } catch (InvalidRequestException e) {
      throw new InvalidRequestException(
          "endUserId", "endUserId is not a valid end-user id: " + e.getMessage());
    }
  }
}
