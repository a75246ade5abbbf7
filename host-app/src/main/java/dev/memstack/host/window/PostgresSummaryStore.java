package dev.memstack.host.window;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.host.shared.SharedTable;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.time.Instant;
import java.util.List;

/**
 * The {@link SummaryStore} of shared mode: one row per summary in table {@code
 * memstack_window_summaries} of the shared database (schema component {@code window-summaries}),
 * keyed by agent, owner, conversation, last covered turn id and hash, so a summary one host made is
 * reused by every host. Erasure deletes the owner's rows and {@code VACUUM}s the table.
 */
public final class PostgresSummaryStore extends SharedTable implements SummaryStore {

  static final String TABLE = "memstack_window_summaries";

  static final List<String> SCHEMA =
      List.of(
          createTable(
              TABLE,
              "last_turn_id text NOT NULL, hash text NOT NULL, summary text NOT NULL,"
                  + " covers_turns integer NOT NULL, created timestamptz NOT NULL",
              "last_turn_id, hash"));

  /**
   * Creates or upgrades the table (once across hosts).
   *
   * @throws IllegalStateException naming the database when it cannot be set up
   */
  public PostgresSummaryStore(SharedStore store) {
    super(store, TABLE, "summary cache", "window-summaries", SCHEMA);
  }

  @Override
  public List<StoredSummary> summaries(
      AgentId agent, OwnerKey owner, String conversationId, Instant notBefore) {
    return select(
        "read summaries",
        "SELECT last_turn_id, hash, summary, covers_turns, created FROM "
            + TABLE
            + " WHERE agent = ? AND owner = ? AND conversation = ? AND created >= ?"
            + " ORDER BY created DESC",
        List.of(agent.value(), owner.value(), conversationId, notBefore),
        row ->
            new StoredSummary(
                agent,
                owner,
                conversationId,
                row.getString(1),
                row.getString(2),
                row.getString(3),
                row.getInt(4),
                row.getTimestamp(5).toInstant()));
  }

  @Override
  public void put(StoredSummary summary, Instant expiredBefore) {
    String agent = summary.agent().value();
    String owner = summary.owner().value();
    String conversation = summary.conversationId();
    write(
        "store a summary",
        connection -> {
          insertIfAbsent(
              connection,
              "agent, owner, conversation, last_turn_id, hash, summary, covers_turns, created",
              agent,
              owner,
              conversation,
              summary.lastTurnId(),
              summary.hash(),
              summary.text(),
              summary.coversTurns(),
              summary.created());
          update(
              connection,
              "DELETE FROM "
                  + TABLE
                  + " WHERE agent = ? AND owner = ? AND conversation = ? AND created < ?",
              agent,
              owner,
              conversation,
              expiredBefore);
        });
  }

  @Override
  public void forgetConversation(AgentId agent, OwnerKey owner, String conversationId) {
    deleteConversation("erase a conversation", agent, owner, conversationId);
  }
}
