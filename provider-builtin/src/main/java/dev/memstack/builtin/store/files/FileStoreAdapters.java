package dev.memstack.builtin.store.files;

import dev.memstack.builtin.store.ChangeListener;
import dev.memstack.builtin.store.ConversationBuffer;
import dev.memstack.builtin.store.KeywordIndex;
import dev.memstack.builtin.store.StoreAdapters;
import dev.memstack.builtin.store.Stores;
import dev.memstack.builtin.store.WorkspaceStore;

/**
 * {@code store=files}: Markdown files under the data directory ({@link FileSystemWorkspaceStore}),
 * a Lucene keyword index under {@code index/} ({@link LuceneKeywordIndex}, with the dense view when
 * the needs name an embedder) and conversation files under {@code conversations/} ({@link
 * FileConversationBuffer}). One host's disk: nothing to watch for other hosts.
 */
public final class FileStoreAdapters implements StoreAdapters {

  private final Stores.Needs needs;
  private final LuceneKeywordIndex index;

  /** Opens (or creates) the keyword index. */
  public FileStoreAdapters(Stores.Needs needs) {
    this.needs = needs;
    this.index =
        new LuceneKeywordIndex(
            needs.dataDir().resolve("index"),
            needs.snippetChars(),
            needs.indexCommitInterval(),
            needs.denseEmbedder());
  }

  @Override
  public KeywordIndex keywordIndex() {
    return index;
  }

  @Override
  public WorkspaceStore workspaceStore(ChangeListener listener) {
    return new FileSystemWorkspaceStore(needs.dataDir(), needs.clock(), needs.defaults(), listener);
  }

  @Override
  public ConversationBuffer conversationBuffer(int maxMessages, int messageMaxChars) {
    return new FileConversationBuffer(needs.dataDir(), maxMessages, messageMaxChars);
  }

  /** Nothing: the index belongs to the caller. */
  @Override
  public void close() {}
}
