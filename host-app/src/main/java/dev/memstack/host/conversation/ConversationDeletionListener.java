package dev.memstack.host.conversation;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;

/**
 * Told when one conversation of an owner is deleted through {@code DELETE
 * .../conversations/{conversationId}}, after its log is cleared: what a component keeps per
 * conversation beyond the log (a window's cached summaries, say) goes with it. Every bean of this
 * type is called, whether or not the log held a turn of the conversation; one that throws fails the
 * call, so a deletion is never reported done while a copy is left behind.
 */
@FunctionalInterface
public interface ConversationDeletionListener {

  /** Removes what this component keeps of the owner's conversation. */
  void conversationDeleted(AgentId agent, OwnerKey owner, String conversationId);
}
