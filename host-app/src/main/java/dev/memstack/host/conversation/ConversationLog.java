package dev.memstack.host.conversation;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.util.List;
import java.util.Optional;

/**
 * The turns of each conversation, newest last, as the host accepted them from {@code POST
 * .../memory/turns}. Bounded per conversation: the oldest turns are dropped first. Thread-safe. The
 * on-disk store is the default; a database-backed one can be added beside it.
 */
public interface ConversationLog {

  /** Appends a turn; a turn id already in the conversation is not added again. */
  void append(LoggedTurn turn);

  /** The conversation's kept turns, oldest first, or empty when it is unknown. */
  Optional<List<LoggedTurn>> turns(AgentId agent, String conversationId);

  /**
   * Removes every turn of {@code owner} from every conversation (part of owner erasure).
   *
   * @return how many turns were removed
   */
  long forget(OwnerKey owner);
}
