package dev.memstack.host.window;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.List;

/**
 * The {@link SummaryStore} of shared mode: one row per summary in table {@code
 * memstack_window_summaries} of the shared database (schema component {@code window-summaries}),
 * keyed by agent, owner, conversation, last covered turn id and hash, so a summary one host made is
 * reused by every host. Erasure deletes the owner's rows and {@code VACUUM}s the table.
 */
public final class PostgresSummaryStore implements SummaryStore {

  static final String TABLE = "memstack_window_summaries";

  static final List<String> SCHEMA =
      List.of(
          "CREATE TABLE IF NOT EXISTS "
              + TABLE
              + " (agent text NOT NULL, owner text NOT NULL, conversation text NOT NULL,"
              + " last_turn_id text NOT NULL, hash text NOT NULL, summary text NOT NULL,"
              + " covers_turns integer NOT NULL, created timestamptz NOT NULL,"
              + " PRIMARY KEY (agent, owner, conversation, last_turn_id, hash));\n"
              + "CREATE INDEX IF NOT EXISTS "
              + TABLE
              + "_owner_idx ON "
              + TABLE
              + " (owner)");

  /** How failures name this store. */
  private static final String STORE = "summary cache";

  private final SharedStore store;

  /**
   * Creates or upgrades the table (once across hosts).
   *
   * @throws IllegalStateException naming the database when it cannot be set up
   */
  public PostgresSummaryStore(SharedStore store) {
    this.store = store;
    store.migrateAtStart("window-summaries", SCHEMA, STORE);
  }

  @Override
  public List<StoredSummary> summaries(
      AgentId agent, OwnerKey owner, String conversationId, java.time.Instant notBefore) {
    try {
      return store.select(
          "SELECT last_turn_id, hash, summary, covers_turns, created FROM "
              + TABLE
              + " WHERE agent = ? AND owner = ? AND conversation = ? AND created >= ?"
              + " ORDER BY created DESC",
          query -> {
            query.setString(1, agent.value());
            query.setString(2, owner.value());
            query.setString(3, conversationId);
            query.setTimestamp(4, Timestamp.from(notBefore));
          },
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
    } catch (SQLException e) {
      throw failure("read summaries", e);
    }
  }

  @Override
  public void put(StoredSummary summary, java.time.Instant expiredBefore) {
    try (Connection connection = store.dataSource().getConnection()) {
      try (PreparedStatement insert =
          connection.prepareStatement(
              "INSERT INTO "
                  + TABLE
                  + " (agent, owner, conversation, last_turn_id, hash, summary, covers_turns,"
                  + " created) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
        insert.setString(1, summary.agent().value());
        insert.setString(2, summary.owner().value());
        insert.setString(3, summary.conversationId());
        insert.setString(4, summary.lastTurnId());
        insert.setString(5, summary.hash());
        insert.setString(6, summary.text());
        insert.setInt(7, summary.coversTurns());
        insert.setTimestamp(8, Timestamp.from(summary.created()));
        insert.executeUpdate();
      }
      try (PreparedStatement expire =
          connection.prepareStatement(
              "DELETE FROM "
                  + TABLE
                  + " WHERE agent = ? AND owner = ? AND conversation = ? AND created < ?")) {
        expire.setString(1, summary.agent().value());
        expire.setString(2, summary.owner().value());
        expire.setString(3, summary.conversationId());
        expire.setTimestamp(4, Timestamp.from(expiredBefore));
        expire.executeUpdate();
      }
    } catch (SQLException e) {
      throw failure("store a summary", e);
    }
  }

  @Override
  public long forget(OwnerKey owner) {
    return store.eraseOwner(TABLE, owner, STORE);
  }

  @Override
  public void forgetConversation(AgentId agent, OwnerKey owner, String conversationId) {
    try {
      store.deleteConversation(TABLE, agent, owner, conversationId);
    } catch (SQLException e) {
      throw failure("erase a conversation", e);
    }
  }

  private UncheckedIOException failure(String what, SQLException e) {
    return store.failure(STORE, what, e);
  }
}
