package dev.memstack.host.api;

import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.conversation.LoggedTurn;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.Caller;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.AgentId;
import io.swagger.v3.oas.annotations.Operation;
import java.time.Instant;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/agents/{agentId}/conversations/{conversationId}}: the turns the host accepted
 * for the conversation, oldest first (the newest {@value
 * dev.memstack.host.conversation.ConversationConfiguration#MAX_TURNS} are kept). Needs {@code
 * viewer}; a token bound to owners sees only their turns. 404 for a conversation the host has not
 * seen (or none of whose turns the token may see).
 */
@RestController
@RequestMapping(
    path = "/api/v1/agents/{agentId}/conversations",
    produces = MediaType.APPLICATION_JSON_VALUE)
public class ConversationController {

  private final ConversationLog conversations;
  private final AccessPolicy access;

  public ConversationController(ConversationLog conversations, AccessPolicy access) {
    this.conversations = conversations;
    this.access = access;
  }

  /** The answer. */
  public record ConversationView(
      String agentId, String conversationId, int count, List<TurnView> turns) {}

  /** One turn. */
  public record TurnView(
      String turnId,
      String ownerKey,
      String userMessage,
      String assistantReply,
      String triggerSource,
      Instant time) {

    static TurnView of(LoggedTurn turn) {
      return new TurnView(
          turn.turnId(),
          turn.owner().value(),
          turn.userMessage(),
          turn.assistantReply(),
          turn.triggerSource(),
          turn.time());
    }
  }

  @Operation(summary = "The recorded turns of one conversation, oldest first")
  @RequiresRole(Role.VIEWER)
  @GetMapping(path = "/{conversationId}")
  public ConversationView conversation(
      @PathVariable("agentId") String agentId,
      @PathVariable("conversationId") String conversationId) {
    AgentId agent = MemoryController.agent(agentId);
    Caller caller = access.caller();
    List<TurnView> turns =
        conversations.turns(agent, conversationId).orElse(List.of()).stream()
            .filter(turn -> caller.mayActFor(turn.owner()))
            .map(TurnView::of)
            .toList();
    if (turns.isEmpty()) {
      throw new NotFoundException(
          "no conversation '" + conversationId + "' of agent " + agent + " is recorded");
    }
    return new ConversationView(agent.value(), conversationId, turns.size(), turns);
  }
}
