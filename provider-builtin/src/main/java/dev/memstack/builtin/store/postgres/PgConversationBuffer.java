package dev.memstack.builtin.store.postgres;

import dev.memstack.builtin.store.ConversationBuffer;
import dev.memstack.builtin.store.ConversationJson;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;

/**
 * The {@link ConversationBuffer} of {@code store=postgres}: one row of {@code
 * <prefix>conversations} (see {@link PgWorkspaceDatabase}) per owner, agent and SHA-256 of the
 * conversation id, with the kept messages as a {@code jsonb} array ({@code turnId}, {@code role},
 * {@code text}, {@code truncated}, {@code time}), the total count and the time of the last change.
 * Every host on the database reads and appends the same rows: an append is one transaction that
 * creates the row if missing and then holds it with {@code SELECT ... FOR UPDATE} while it adds the
 * turn, so appends from any number of hosts lose none. {@link #forget} deletes the owner's rows and
 * then {@code VACUUM}s the table, so the deleted messages do not stay on its pages. Thread-safe.
 */
public final class PgConversationBuffer implements ConversationBuffer {

  private static final Logger log = LoggerFactory.getLogger(PgConversationBuffer.class);

  private final PgWorkspaceDatabase db;
  private final int maxMessages;
  private final int messageMaxChars;
  private final JsonMapper json = JsonMapper.builder().build();
  private final String insertSql;
  private final String lockSql;
  private final String readSql;
  private final String updateSql;
  private final String deleteSql;

  /**
   * A buffer in {@code db}'s conversations table (created by {@link PgWorkspaceDatabase#open}).
   *
   * @throws IllegalArgumentException if a bound is not positive
   */
  public PgConversationBuffer(PgWorkspaceDatabase db, int maxMessages, int messageMaxChars) {
    this.db = Objects.requireNonNull(db, "db");
    ConversationBuffer.checkBounds(maxMessages, messageMaxChars);
    this.maxMessages = maxMessages;
    this.messageMaxChars = messageMaxChars;
    String table = db.conversations;
    this.insertSql =
        "INSERT INTO "
            + table
            + " (owner, agent, conversation, messages, total, updated_at)"
            + " VALUES (?, ?, ?, '[]'::jsonb, 0, now()) ON CONFLICT DO NOTHING";
    String where = " WHERE owner = ? AND agent = ? AND conversation = ?";
    this.readSql = "SELECT messages::text, total FROM " + table + where;
    this.lockSql = readSql + " FOR UPDATE";
    this.updateSql =
        "UPDATE " + table + " SET messages = ?::jsonb, total = ?, updated_at = now()" + where;
    this.deleteSql = "DELETE FROM " + table + " WHERE owner = ?";
  }

  @Override
  public Conversation append(Turn turn) {
    String key = ConversationBuffer.key(turn.conversationId());
    try (Connection connection = db.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      try {
        try (PreparedStatement insert = connection.prepareStatement(insertSql)) {
          bind(insert, 1, turn.owner(), turn.agent(), key);
          insert.executeUpdate();
        }
        Conversation current;
        try (PreparedStatement lock = connection.prepareStatement(lockSql)) {
          bind(lock, 1, turn.owner(), turn.agent(), key);
          current = conversation(lock);
        }
        Conversation next =
            ConversationBuffer.appended(current, turn, maxMessages, messageMaxChars);
        if (next != current) {
          try (PreparedStatement update = connection.prepareStatement(updateSql)) {
            update.setString(1, write(next.messages()));
            update.setLong(2, next.totalMessages());
            bind(update, 3, turn.owner(), turn.agent(), key);
            update.executeUpdate();
          }
        }
        connection.commit();
        return next;
      } catch (SQLException | RuntimeException | Error e) {
        rollback(connection);
        throw e;
      }
    } catch (SQLException e) {
      throw db.failure("append a turn to a conversation of " + turn.owner(), e);
    }
  }

  @Override
  public Conversation read(AgentId agent, OwnerKey owner, String conversationId) {
    try (Connection connection = db.dataSource().getConnection();
        PreparedStatement query = connection.prepareStatement(readSql)) {
      bind(query, 1, owner, agent, ConversationBuffer.key(conversationId));
      return conversation(query);
    } catch (SQLException e) {
      throw db.failure("read a conversation of " + owner, e);
    }
  }

  @Override
  public long forget(OwnerKey owner) {
    long removed;
    try (Connection connection = db.dataSource().getConnection();
        PreparedStatement delete = connection.prepareStatement(deleteSql)) {
      delete.setString(1, owner.value());
      removed = delete.executeUpdate();
    } catch (SQLException e) {
      throw db.failure("erase the conversations of " + owner, e);
    }
    try (Connection connection = db.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(true);
      statement.execute("VACUUM " + db.conversations);
    } catch (SQLException e) {
      throw db.failure("vacuum the conversations after an erasure", e);
    }
    return removed;
  }

  private static void bind(
      PreparedStatement statement, int from, OwnerKey owner, AgentId agent, String key)
      throws SQLException {
    statement.setString(from, owner.value());
    statement.setString(from + 1, agent.value());
    statement.setString(from + 2, key);
  }

  private Conversation conversation(PreparedStatement query) throws SQLException {
    try (ResultSet rows = query.executeQuery()) {
      if (!rows.next()) {
        return Conversation.EMPTY;
      }
      List<Message> messages = read(rows.getString(1));
      long total = rows.getLong(2);
      return messages.isEmpty() && total == 0
          ? Conversation.EMPTY
          : new Conversation(total, messages);
    }
  }

  private List<Message> read(String text) {
    try {
      List<Message> messages = ConversationJson.read(json.readTree(text));
      return messages;
    } catch (JacksonException | java.time.format.DateTimeParseException e) {
      throw new IllegalStateException(
          "builtin store at "
              + db.settings().safeUrl()
              + ": a row of "
              + db.conversations
              + " does not hold a message list: "
              + e.getMessage(),
          e);
    }
  }

  private String write(List<Message> messages) {
    ArrayNode array = json.createArrayNode();
    ConversationJson.write(array, messages);
    return json.writeValueAsString(array);
  }

  private static void rollback(Connection connection) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      log.warn("rollback failed: {}", e.toString());
    }
  }
}
