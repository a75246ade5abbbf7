package dev.memstack.host.api;

import dev.memstack.host.conversation.ConversationEntry;
import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.OwnerBinding;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import io.swagger.v3.oas.annotations.Operation;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;

/**
 * {@code GET /api/v1/agents/{agentId}/conversations/{conversationId}?ownerKey=}: the turns the host
 * accepted from one owner in the conversation, oldest first (the newest {@value
 * dev.memstack.host.conversation.ConversationConfiguration#MAX_TURNS} of each owner are kept).
 * Needs {@code viewer}. The owner is the {@code ownerKey} query parameter, which the token must
 * cover (403 otherwise); a token bound to one owner key may leave it out and gets its own owner's
 * turns, any other token (an admin, or one bound to an owner-key prefix) must name it (400 naming
 * {@code ownerKey}). 404 when the owner has no turn in the conversation.
 */
@JsonRoutes("/api/v1/agents/{agentId}/conversations")
public class ConversationController {

  private final ConversationLog conversations;
  private final AccessPolicy access;

  public ConversationController(ConversationLog conversations, AccessPolicy access) {
    this.conversations = conversations;
    this.access = access;
  }

  /** The answer. */
  public record ConversationView(
      String agentId,
      String ownerKey,
      String conversationId,
      int count,
      List<ConversationEntry> turns) {}

  @Operation(summary = "The recorded turns of one conversation, oldest first")
  @RequiresRole(Role.VIEWER)
  @GetMapping(path = "/{conversationId}")
  public ConversationView conversation(
      @PathVariable("agentId") String agentId,
      @PathVariable("conversationId") String conversationId,
      @RequestParam(name = "ownerKey", required = false) String ownerKey) {
    AgentId agent = JsonBody.agent(agentId);
    OwnerKey owner = owner(ownerKey);
    List<ConversationEntry> turns =
        conversations.turns(agent, owner, conversationId).orElse(List.of());
    if (turns.isEmpty()) {
      throw new NotFoundException(
          "no turn of "
              + owner.value()
              + " in conversation '"
              + conversationId
              + "' of agent "
              + agent
              + " is recorded");
    }
    return new ConversationView(agent.value(), owner.value(), conversationId, turns.size(), turns);
  }

  /** The owner asked for, checked against the token; a token of one owner key may omit it. */
  private OwnerKey owner(String ownerKey) {
    if (ownerKey != null) {
      OwnerKey owner = JsonBody.storedOwnerKey(ownerKey, access.caller());
      access.requireOwner(owner);
      return owner;
    }
    OwnerBinding binding = access.caller().owner();
    if (binding == null || binding.isPrefix()) {
      throw new BadRequestException(
          "ownerKey",
          "ownerKey is required: a conversation is kept per owner, and this token is not bound to"
              + " one owner key");
    }
    return OwnerKey.of(binding.pattern());
  }
}
