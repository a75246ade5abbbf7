package dev.memstack.host.conversation;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.host.shared.SharedTable;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.time.Instant;
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
public final class PostgresConversationLog extends SharedTable implements ConversationLog {

  static final String TABLE = "memstack_conversation_turns";

  /** The schema steps of component {@code conversations}, in order. */
  static final List<String> SCHEMA =
      List.of(
          createTable(
              TABLE,
              "turn_id text NOT NULL, seq bigserial NOT NULL, user_message text NOT NULL,"
                  + " assistant_reply text NOT NULL, trigger_source text NOT NULL,"
                  + " time timestamptz NOT NULL",
              "turn_id",
              index(TABLE, "order", "agent, owner, conversation, seq")));

  private final ConversationLimits limits;

  /**
   * Creates or upgrades the table (once across hosts).
   *
   * @throws IllegalStateException naming the database when it cannot be set up
   */
  public PostgresConversationLog(SharedStore store, ConversationLimits limits) {
    super(store, TABLE, "conversation log", "conversations", SCHEMA);
    this.limits = limits;
  }

  @Override
  public void append(Turn turn) {
    ConversationEntry entry = ConversationEntry.of(turn, limits.maxMessageChars());
    String agent = turn.agent().value();
    String owner = turn.owner().value();
    String conversation = turn.conversationId();
    transaction(
        "append a turn",
        connection -> {
          boolean inserted =
              insertIfAbsent(
                  connection,
                  "agent, owner, conversation, turn_id, user_message, assistant_reply,"
                      + " trigger_source, time",
                  agent,
                  owner,
                  conversation,
                  entry.turnId(),
                  entry.userMessage(),
                  entry.assistantReply(),
                  entry.triggerSource(),
                  entry.time());
          if (inserted) {
            update(
                connection,
                "DELETE FROM "
                    + TABLE
                    + " WHERE agent = ? AND owner = ? AND conversation = ? AND seq <= ("
                    + "SELECT seq FROM "
                    + TABLE
                    + " WHERE agent = ? AND owner = ? AND conversation = ?"
                    + " ORDER BY seq DESC OFFSET ? LIMIT 1)",
                agent,
                owner,
                conversation,
                agent,
                owner,
                conversation,
                limits.maxTurns());
          }
        });
  }

  @Override
  public Optional<List<ConversationEntry>> turns(
      AgentId agent, OwnerKey owner, String conversationId) {
    List<ConversationEntry> turns =
        select(
            "read a conversation",
            "SELECT turn_id, user_message, assistant_reply, trigger_source, time FROM "
                + TABLE
                + " WHERE agent = ? AND owner = ? AND conversation = ? ORDER BY seq",
            List.of(agent.value(), owner.value(), conversationId),
            row ->
                new ConversationEntry(
                    row.getString(1),
                    owner.value(),
                    row.getString(2),
                    row.getString(3),
                    row.getString(4),
                    row.getTimestamp(5).toInstant()));
    return turns.isEmpty() ? Optional.empty() : Optional.of(turns);
  }

  @Override
  public List<ConversationSummary> conversations(AgentId agent, OwnerKey owner) {
    return List.copyOf(
        select(
            "list conversations",
            "SELECT conversation, count(*), max(time) FROM "
                + TABLE
                + " WHERE agent = ? AND owner = ? GROUP BY conversation"
                + " ORDER BY max(time) DESC, conversation",
            List.of(agent.value(), owner.value()),
            row ->
                new ConversationSummary(
                    row.getString(1),
                    Math.toIntExact(row.getLong(2)),
                    row.getTimestamp(3).toInstant())));
  }

  /** One count over the owner's rows (the primary key starts with agent and owner). */
  @Override
  public long turnsSince(AgentId agent, OwnerKey owner, Instant from) {
    return select(
            "count recent turns",
            "SELECT count(*) FROM " + TABLE + " WHERE agent = ? AND owner = ? AND time >= ?",
            List.of(agent.value(), owner.value(), from),
            row -> row.getLong(1))
        .get(0);
  }

  @Override
  public long deleteConversation(AgentId agent, OwnerKey owner, String conversationId) {
    return deleteConversation("delete a conversation", agent, owner, conversationId);
  }

  @Override
  public Set<String> ownerKeys() {
    return new TreeSet<>(
        select(
            "list its owners",
            "SELECT DISTINCT owner FROM " + TABLE,
            List.of(),
            row -> row.getString(1)));
  }
}
