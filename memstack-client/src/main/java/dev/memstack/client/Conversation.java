package dev.memstack.client;

import java.util.List;

/**
 * The answer of {@code GET /api/v1/agents/{agentId}/conversations/{conversationId}}: one owner's
 * kept turns of a conversation, oldest first.
 *
 * @param agentId the agent
 * @param ownerKey the owner
 * @param conversationId the conversation
 * @param count how many turns the log keeps
 * @param turns the turns, oldest first; never {@code null}
 */
public record Conversation(
    String agentId,
    String ownerKey,
    String conversationId,
    int count,
    List<ConversationTurn> turns) {

  public Conversation {
    turns = turns == null ? List.of() : List.copyOf(turns);
  }
}
