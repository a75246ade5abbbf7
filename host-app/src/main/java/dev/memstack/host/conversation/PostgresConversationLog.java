package dev.memstack.host.conversation;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@link ConversationLog} of shared mode: one row per turn in table {@code
 * memstack_conversation_turns} of the shared database ({@link SharedStore}, schema component {@code
 * conversations}), keyed by agent, owner, conversation and turn id, so every host sees the turns
 * any host accepted and the same conversation and turn id of two owners are two rows that no query
 * of one owner can reach. Each append inserts the turn (a turn id the owner already has in the
 * conversation is ignored) and drops the owner's oldest turns of the conversation past {@code
 * maxTurns}, in one transaction; messages are cut at {@code maxMessageChars} as in the file log.
 * Erasure deletes the owner's rows and then {@code VACUUM}s the table, so the pages keep no copy.
 * Thread-safe.
 */
public final class PostgresConversationLog implements ConversationLog {

  static final String TABLE = "memstack_conversation_turns";

  /** The schema steps of component {@code conversations}, in order. */
  static final List<String> SCHEMA =
      List.of(
          "CREATE TABLE IF NOT EXISTS "
              + TABLE
              + " (agent text NOT NULL, owner text NOT NULL, conversation text NOT NULL,"
              + " turn_id text NOT NULL, seq bigserial NOT NULL, user_message text NOT NULL,"
              + " assistant_reply text NOT NULL, trigger_source text NOT NULL,"
              + " time timestamptz NOT NULL, PRIMARY KEY (agent, owner, conversation, turn_id));\n"
              + "CREATE INDEX IF NOT EXISTS "
              + TABLE
              + "_order_idx ON "
              + TABLE
              + " (agent, owner, conversation, seq);\n"
              + "CREATE INDEX IF NOT EXISTS "
              + TABLE
              + "_owner_idx ON "
              + TABLE
              + " (owner)");

  /** How failures name this store. */
  private static final String STORE = "conversation log";

  private final SharedStore store;
  private final ConversationLimits limits;

  /**
   * Creates or upgrades the table (once across hosts).
   *
   * @throws IllegalStateException naming the database when it cannot be set up
   */
  public PostgresConversationLog(SharedStore store, ConversationLimits limits) {
    this.store = store;
    this.limits = limits;
    store.migrateAtStart("conversations", SCHEMA, STORE);
  }

  @Override
  public void append(Turn turn) {
    ConversationEntry entry = ConversationEntry.of(turn, limits.maxMessageChars());
    try (Connection connection = store.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      try {
        int inserted;
        try (PreparedStatement insert =
            connection.prepareStatement(
                "INSERT INTO "
                    + TABLE
                    + " (agent, owner, conversation, turn_id, user_message, assistant_reply,"
                    + " trigger_source, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                    + " ON CONFLICT DO NOTHING")) {
          insert.setString(1, turn.agent().value());
          insert.setString(2, turn.owner().value());
          insert.setString(3, turn.conversationId());
          insert.setString(4, entry.turnId());
          insert.setString(5, entry.userMessage());
          insert.setString(6, entry.assistantReply());
          insert.setString(7, entry.triggerSource());
          insert.setTimestamp(8, Timestamp.from(entry.time()));
          inserted = insert.executeUpdate();
        }
        if (inserted > 0) {
          try (PreparedStatement trim =
              connection.prepareStatement(
                  "DELETE FROM "
                      + TABLE
                      + " WHERE agent = ? AND owner = ? AND conversation = ? AND seq <= ("
                      + "SELECT seq FROM "
                      + TABLE
                      + " WHERE agent = ? AND owner = ? AND conversation = ?"
                      + " ORDER BY seq DESC OFFSET ? LIMIT 1)")) {
            for (int i = 0; i < 2; i++) {
              trim.setString(1 + 3 * i, turn.agent().value());
              trim.setString(2 + 3 * i, turn.owner().value());
              trim.setString(3 + 3 * i, turn.conversationId());
            }
            trim.setInt(7, limits.maxTurns());
            trim.executeUpdate();
          }
        }
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw failure("append a turn", e);
    }
  }

  @Override
  public Optional<List<ConversationEntry>> turns(
      AgentId agent, OwnerKey owner, String conversationId) {
    List<ConversationEntry> turns;
    try {
      turns =
          store.select(
              "SELECT turn_id, user_message, assistant_reply, trigger_source, time FROM "
                  + TABLE
                  + " WHERE agent = ? AND owner = ? AND conversation = ? ORDER BY seq",
              query -> {
                query.setString(1, agent.value());
                query.setString(2, owner.value());
                query.setString(3, conversationId);
              },
              row ->
                  new ConversationEntry(
                      row.getString(1),
                      owner.value(),
                      row.getString(2),
                      row.getString(3),
                      row.getString(4),
                      row.getTimestamp(5).toInstant()));
    } catch (SQLException e) {
      throw failure("read a conversation", e);
    }
    return turns.isEmpty() ? Optional.empty() : Optional.of(turns);
  }

  @Override
  public List<ConversationSummary> conversations(AgentId agent, OwnerKey owner) {
    try {
      return List.copyOf(
          store.select(
              "SELECT conversation, count(*), max(time) FROM "
                  + TABLE
                  + " WHERE agent = ? AND owner = ? GROUP BY conversation"
                  + " ORDER BY max(time) DESC, conversation",
              query -> {
                query.setString(1, agent.value());
                query.setString(2, owner.value());
              },
              row ->
                  new ConversationSummary(
                      row.getString(1),
                      Math.toIntExact(row.getLong(2)),
                      row.getTimestamp(3).toInstant())));
    } catch (SQLException e) {
      throw failure("list conversations", e);
    }
  }

  @Override
  public long deleteConversation(AgentId agent, OwnerKey owner, String conversationId) {
    try {
      return store.deleteConversation(TABLE, agent, owner, conversationId);
    } catch (SQLException e) {
      throw failure("delete a conversation", e);
    }
  }

  @Override
  public long forget(OwnerKey owner) {
    return store.eraseOwner(TABLE, owner, STORE);
  }

  @Override
  public Set<String> ownerKeys() {
    try {
      return new TreeSet<>(
          store.select(
              "SELECT DISTINCT owner FROM " + TABLE, query -> {}, row -> row.getString(1)));
    } catch (SQLException e) {
      throw failure("list its owners", e);
    }
  }

  private UncheckedIOException failure(String what, SQLException e) {
    return store.failure(STORE, what, e);
  }
}
