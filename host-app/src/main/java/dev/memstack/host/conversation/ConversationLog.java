package dev.memstack.host.conversation;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The turns of each conversation, newest last, as the stack accepted them (it records every turn it
 * hands to the outbox), kept apart per agent, owner and conversation: the same conversation id and
 * turn id of two owners are two conversations and two turns, so an owner can neither see, shadow
 * nor evict another owner's turns. Bounded per agent, owner and conversation: the oldest turns are
 * dropped first. Thread-safe. The on-disk store ({@link FileConversationLog}) is the default; in
 * shared mode the turns are rows of the shared database ({@link PostgresConversationLog}).
 */
public interface ConversationLog {

  /**
   * Appends a turn (each message cut at the log's limit); a turn id the owner already has in the
   * conversation is not added again (the same id of another owner is another turn).
   */
  void append(Turn turn);

  /** The owner's kept turns of the conversation, oldest first, or empty when there are none. */
  Optional<List<ConversationEntry>> turns(AgentId agent, OwnerKey owner, String conversationId);

  /**
   * The owner's conversations with the agent that hold at least one kept turn, the one with the
   * newest turn first (ties by conversation id); empty when there are none.
   */
  List<ConversationSummary> conversations(AgentId agent, OwnerKey owner);

  /**
   * How many of the owner's kept turns with the agent are dated at or after {@code from} (a turn's
   * time, as it was submitted). The default reads the conversations whose newest turn is that
   * recent.
   */
  default long turnsSince(AgentId agent, OwnerKey owner, Instant from) {
    long turns = 0;
    for (ConversationSummary conversation : conversations(agent, owner)) {
      if (!conversation.lastTurnAt().isBefore(from)) {
        turns +=
            turns(agent, owner, conversation.conversationId()).orElse(List.of()).stream()
                .filter(entry -> !entry.time().isBefore(from))
                .count();
      }
    }
    return turns;
  }

  /**
   * Removes every turn of the owner's conversation, leaving the owner's other conversations and
   * every other owner's turns as they are.
   *
   * @return how many turns were removed, 0 when the owner had none in it
   */
  long deleteConversation(AgentId agent, OwnerKey owner, String conversationId);

  /**
   * Removes every turn of {@code owner} from every conversation (part of owner erasure), leaving no
   * stored copy of them behind.
   *
   * @return how many turns were removed
   */
  long forget(OwnerKey owner);

  /**
   * The owner keys the log holds turns of, as they were stored (some possibly under an older
   * identifier rule); empty for a log that keeps nothing.
   */
  default Set<String> ownerKeys() {
    return Set.of();
  }

  /** A log that keeps nothing: appends are dropped, reads find nothing, erasure removes nothing. */
  static ConversationLog none() {
    return NoConversationLog.INSTANCE;
  }
}
