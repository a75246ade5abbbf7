package dev.memstack.host.api;

import dev.memstack.host.conversation.ConversationDeletionListener;
import dev.memstack.host.conversation.ConversationEntry;
import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.conversation.ConversationSummary;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;

/**
 * An owner's conversations as the host's conversation log keeps them:
 *
 * <ul>
 *   <li>{@code GET /api/v1/agents/{agentId}/conversations/{conversationId}?ownerKey=}: the turns
 *       the host accepted from one owner in the conversation, oldest first (the newest {@value
 *       dev.memstack.host.conversation.ConversationConfiguration#MAX_TURNS} of each owner are
 *       kept); needs {@code viewer}; 404 when the owner has no turn in the conversation;
 *   <li>{@code GET /api/v1/agents/{agentId}/conversations?ownerKey=}: the owner's conversations,
 *       the one with the newest turn first; needs {@code viewer};
 *   <li>{@code DELETE /api/v1/agents/{agentId}/conversations/{conversationId}?ownerKey=}: clears
 *       the owner's log of the conversation and tells every {@link ConversationDeletionListener}
 *       (what is kept per conversation beyond the log goes with it); needs {@code member}; 204, or
 *       404 when the owner has no turn in the conversation.
 * </ul>
 *
 * The owner is the {@code ownerKey} query parameter, which the token must cover (403 otherwise); a
 * token bound to one owner key may leave it out and acts for its own owner, any other token (an
 * admin, or one bound to an owner-key prefix) must name it (400 naming {@code ownerKey}).
 */
@JsonRoutes("/api/v1/agents/{agentId}/conversations")
public class ConversationController {

  private final ConversationLog conversations;
  private final AccessPolicy access;
  private final ObjectProvider<ConversationDeletionListener> deletionListeners;

  public ConversationController(
      ConversationLog conversations,
      AccessPolicy access,
      ObjectProvider<ConversationDeletionListener> deletionListeners) {
    this.conversations = conversations;
    this.access = access;
    this.deletionListeners = deletionListeners;
  }

  /** The answer. */
  public record ConversationView(
      String agentId,
      String ownerKey,
      String conversationId,
      int count,
      List<ConversationEntry> turns) {}

  /** The answer of the list. */
  public record ConversationList(
      String agentId, String ownerKey, int count, List<ConversationSummary> conversations) {}

  @Operation(summary = "An owner's conversations, the one with the newest turn first")
  @RequiresRole(Role.VIEWER)
  @GetMapping
  public ConversationList conversations(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "ownerKey", required = false) String ownerKey) {
    AgentId agent = JsonBody.agent(agentId);
    OwnerKey owner = WindowRequests.owner(ownerKey, access);
    List<ConversationSummary> found = conversations.conversations(agent, owner);
    return new ConversationList(agent.value(), owner.value(), found.size(), found);
  }

  @Operation(summary = "Clears an owner's log of one conversation")
  @ApiResponse(responseCode = "204", description = "The conversation's turns were removed")
  @RequiresRole(Role.MEMBER)
  @DeleteMapping(path = "/{conversationId}")
  public ResponseEntity<Void> deleteConversation(
      @PathVariable("agentId") String agentId,
      @PathVariable("conversationId") String conversationId,
      @RequestParam(name = "ownerKey", required = false) String ownerKey) {
    AgentId agent = JsonBody.agent(agentId);
    OwnerKey owner = WindowRequests.owner(ownerKey, access);
    long removed = conversations.deleteConversation(agent, owner, conversationId);
    // told even when the log held nothing: what a listener keeps must not outlive the log
    deletionListeners
        .orderedStream()
        .forEach(listener -> listener.conversationDeleted(agent, owner, conversationId));
    if (removed == 0) {
      throw notRecorded(agent, owner, conversationId);
    }
    return ResponseEntity.noContent().build();
  }

  @Operation(summary = "The recorded turns of one conversation, oldest first")
  @RequiresRole(Role.VIEWER)
  @GetMapping(path = "/{conversationId}")
  public ConversationView conversation(
      @PathVariable("agentId") String agentId,
      @PathVariable("conversationId") String conversationId,
      @RequestParam(name = "ownerKey", required = false) String ownerKey) {
    AgentId agent = JsonBody.agent(agentId);
    OwnerKey owner = WindowRequests.owner(ownerKey, access);
    List<ConversationEntry> turns =
        conversations.turns(agent, owner, conversationId).orElse(List.of());
    if (turns.isEmpty()) {
      throw notRecorded(agent, owner, conversationId);
    }
    return new ConversationView(agent.value(), owner.value(), conversationId, turns.size(), turns);
  }

  private static NotFoundException notRecorded(
      AgentId agent, OwnerKey owner, String conversationId) {
    return new NotFoundException(
        "no turn of "
            + owner.value()
            + " in conversation '"
            + conversationId
            + "' of agent "
            + agent
            + " is recorded");
  }
}
