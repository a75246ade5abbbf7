package dev.memstack.host.window;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;

/**
 * The conversation window: what to send the chat model next for one conversation, within a token
 * budget — {@code [system prompt][workspace files][summary, if any][recent…][current user
 * message]}. The turns come from the host's conversation log. Thread-safe.
 */
public interface ConversationWindows {

  /**
   * The window to send next: [system prompt][workspace files][summary, if any][recent…][current
   * user message].
   */
  Window window(WindowRequest request);

  /**
   * The window {@link #window} would answer now, keeping nothing: a summary it needs is made but
   * not cached, and no expired summary is dropped (the recall preview's window).
   */
  Window preview(WindowRequest request);

  /**
   * After the model reported a context overflow: older messages dropped without calling the model,
   * the last 2 exchanges kept.
   */
  Window emergency(WindowRequest request);

  /** Erases the owner's cached summaries (owner erasure). */
  long forget(OwnerKey owner);

  /** Erases one conversation's cached summaries. */
  void forgetConversation(AgentId agent, OwnerKey owner, String conversationId);
}
