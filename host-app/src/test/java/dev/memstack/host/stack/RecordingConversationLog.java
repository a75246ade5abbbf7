package dev.memstack.host.stack;

import dev.memstack.host.conversation.ConversationEntry;
import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.conversation.ConversationSummary;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** A conversation log that keeps the turns appended to it, or fails every append when told to. */
final class RecordingConversationLog implements ConversationLog {

  final List<Turn> appended = new CopyOnWriteArrayList<>();
  volatile boolean failing;

  @Override
  public void append(Turn turn) {
    if (failing) {
      throw new IllegalStateException("the conversation log is down");
    }
    appended.add(turn);
  }

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
