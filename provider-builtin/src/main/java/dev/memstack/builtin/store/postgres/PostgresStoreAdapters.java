package dev.memstack.builtin.store.postgres;

import dev.memstack.builtin.store.ChangeListener;
import dev.memstack.builtin.store.ConversationBuffer;
import dev.memstack.builtin.store.KeywordIndex;
import dev.memstack.builtin.store.PgSettings;
import dev.memstack.builtin.store.StoreAdapters;
import dev.memstack.builtin.store.Stores;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.spi.AgentId;
import java.util.function.Consumer;

/**
 * {@code store=postgres}: one database ({@link PgWorkspaceDatabase}, schema created or upgraded on
 * open) holds the files ({@link PostgresWorkspaceStore}), the keyword index's rows ({@link
 * PostgresKeywordIndex}, written by the store in each commit's transaction) and the conversations
 * ({@link PgConversationBuffer}); a {@link PgPromptWatcher} tells of other hosts' prompt changes.
 */
public final class PostgresStoreAdapters implements StoreAdapters {

  private final PgSettings settings;
  private final Stores.Needs needs;
  private final PgWorkspaceDatabase database;
  private final PostgresKeywordIndex index;
  private PostgresWorkspaceStore store;

  private PostgresStoreAdapters(
      PgSettings settings, Stores.Needs needs, PgWorkspaceDatabase database) {
    this.settings = settings;
    this.needs = needs;
    this.database = database;
    this.index = new PostgresKeywordIndex(database, needs.snippetChars());
  }

  /**
   * Connects and creates or upgrades the tables.
   *
   * @throws IllegalStateException naming the database when it cannot be reached or set up
   */
  public static PostgresStoreAdapters open(PgSettings settings, Stores.Needs needs) {
    return new PostgresStoreAdapters(settings, needs, PgWorkspaceDatabase.open(settings));
  }

  @Override
  public KeywordIndex keywordIndex() {
    return index;
  }

  @Override
  public synchronized WorkspaceStore workspaceStore(ChangeListener listener) {
    store = new PostgresWorkspaceStore(database, index, needs.clock(), needs.weighted(), listener);
    return store;
  }

  @Override
  public ConversationBuffer conversationBuffer(int maxMessages, int messageMaxChars) {
    return new PgConversationBuffer(database, maxMessages, messageMaxChars);
  }

  /** A {@link PgPromptWatcher} every {@code prompt-poll-interval}; nothing when it is 0. */
  @Override
  public synchronized AutoCloseable watchPrompts(Consumer<AgentId> promptChanged) {
    if (store == null || settings.promptPollInterval().isZero()) {
      return () -> {};
    }
    return new PgPromptWatcher(store, settings.promptPollInterval(), promptChanged);
  }

  /** Closes the database's pool (the store closes it too; closing twice is harmless). */
  @Override
  public void close() {
    database.close();
  }
}
