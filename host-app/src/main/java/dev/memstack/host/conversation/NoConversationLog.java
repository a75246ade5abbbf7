package dev.memstack.host.conversation;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.util.List;
import java.util.Optional;

/** The {@link ConversationLog#none()} log: keeps nothing. */
enum NoConversationLog implements ConversationLog {
  INSTANCE;

  @Override
  public void append(Turn turn) {}

  @Override
  public Optional<List<ConversationEntry>> turns(
      AgentId agent, OwnerKey owner, String conversationId) {
    return Optional.empty();
  }

  @Override
  public List<ConversationSummary> conversations(AgentId agent, OwnerKey owner) {
    return List.of();
  }

  @Override
  public long deleteConversation(AgentId agent, OwnerKey owner, String conversationId) {
    return 0;
  }

  @Override
  public long forget(OwnerKey owner) {
    return 0;
  }
}
