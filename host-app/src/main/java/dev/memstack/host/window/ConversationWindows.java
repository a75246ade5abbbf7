package dev.memstack.host.window;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;

/** The conversation window (contract placeholder until the window layer lands). */
public interface ConversationWindows {

  /** The window to send next. */
  Window window(WindowRequest request);

  /** After the model reported a context overflow. */
  Window emergency(WindowRequest request);

  /** Erases the owner's cached summaries. */
  long forget(OwnerKey owner);

  /** Erases one conversation's cached summaries. */
  void forgetConversation(AgentId agent, OwnerKey owner, String conversationId);
}
