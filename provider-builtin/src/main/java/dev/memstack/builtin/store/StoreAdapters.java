package dev.memstack.builtin.store;

import dev.memstack.spi.AgentId;
import java.util.function.Consumer;

/**
 * The adapters of one store, opened together on one storage by {@link Stores#open}: the keyword
 * index, the workspace store (opened once, with the listener that keeps the index and the caches in
 * step) and the conversation buffer. The caller owns what it takes: it closes the index, the store
 * and any prompt watcher; {@link #close()} releases only what was never handed out.
 */
public interface StoreAdapters extends AutoCloseable {

  /** The keyword index (the same instance every time). */
  KeywordIndex keywordIndex();

  /**
   * Opens the workspace store; call once.
   *
   * @param listener told of every commit, under the bucket's lock
   */
  WorkspaceStore workspaceStore(ChangeListener listener);

  /**
   * The conversation buffer on the same storage.
   *
   * @throws IllegalArgumentException if a bound is not positive
   */
  ConversationBuffer conversationBuffer(int maxMessages, int messageMaxChars);

  /**
   * Starts telling {@code promptChanged} about system prompt changes other hosts make on a shared
   * storage ({@code null} = every agent); after {@link #workspaceStore}. Storage only this process
   * writes has nothing to watch: the default does nothing.
   */
  default AutoCloseable watchPrompts(Consumer<AgentId> promptChanged) {
    return () -> {};
  }

  /** Releases the storage itself (a database's pool); idempotent. */
  @Override
  void close();
}
