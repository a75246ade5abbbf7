package dev.memstack.outbox.postgres;

import dev.memstack.outbox.journal.DeadLetter;
import dev.memstack.outbox.journal.DeadLetterStore;
import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The shared journal's dead letters: rows of {@code memstack_outbox_dead_letter}, seen by every
 * host. Database errors are {@link IOException}s, as for the journal's other storage.
 */
final class PostgresDeadLetters implements DeadLetterStore {

  private static final String COLUMNS =
      "id, provider, position, owner, agent, conversation_id, turn_id, accepted_at, parked_at,"
          + " attempts, reason, detail";

  private final OutboxDatabase store;

  PostgresDeadLetters(OutboxDatabase store) {
    this.store = store;
  }

  @Override
  public void put(DeadLetter letter, byte[] record) throws IOException {
    try {
      PostgresRows.update(
          store,
          "INSERT INTO memstack_outbox_dead_letter ("
              + COLUMNS
              + ", record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
              + " ON CONFLICT (id) DO UPDATE SET parked_at = excluded.parked_at,"
              + " attempts = excluded.attempts, reason = excluded.reason,"
              + " detail = excluded.detail, record = excluded.record",
          s -> {
            s.setString(1, letter.id());
            s.setString(2, letter.provider());
            s.setLong(3, letter.position());
            s.setString(4, letter.owner());
            s.setString(5, letter.agent());
            s.setString(6, letter.conversationId());
            s.setString(7, letter.turnId());
            s.setLong(8, letter.acceptedAt().toEpochMilli());
            s.setLong(9, letter.parkedAt().toEpochMilli());
            s.setInt(10, letter.attempts());
            s.setString(11, letter.reason());
            s.setString(12, letter.detail());
            s.setBytes(13, record);
          });
    } catch (SQLException e) {
      throw new IOException("cannot store a dead letter in " + store.describe() + ": " + e, e);
    }
  }

  @Override
  public List<DeadLetter> list() throws IOException {
    try {
      return PostgresRows.query(
          store,
          "SELECT " + COLUMNS + " FROM memstack_outbox_dead_letter ORDER BY parked_at, id",
          s -> {},
          rows -> {
            List<DeadLetter> all = new ArrayList<>();
            while (rows.next()) {
              all.add(letter(rows));
            }
            return all;
          });
    } catch (SQLException e) {
      throw new IOException("cannot read the dead letters in " + store.describe() + ": " + e, e);
    }
  }

  @Override
  public Optional<byte[]> record(String id) throws IOException {
    if (!DeadLetter.isId(id)) {
      return Optional.empty();
    }
    try {
      return PostgresRows.query(
          store,
          "SELECT record FROM memstack_outbox_dead_letter WHERE id = ?",
          s -> s.setString(1, id),
          rows -> rows.next() ? Optional.of(rows.getBytes(1)) : Optional.<byte[]>empty());
    } catch (SQLException e) {
      throw new IOException("cannot read a dead letter in " + store.describe() + ": " + e, e);
    }
  }

  @Override
  public boolean remove(String id) throws IOException {
    if (!DeadLetter.isId(id)) {
      return false;
    }
    return delete("DELETE FROM memstack_outbox_dead_letter WHERE id = ?", id) > 0;
  }

  @Override
  public int removeOwner(String owner) throws IOException {
    return delete("DELETE FROM memstack_outbox_dead_letter WHERE owner = ?", owner);
  }

  private int delete(String sql, String value) throws IOException {
    try {
      return PostgresRows.update(store, sql, s -> s.setString(1, value));
    } catch (SQLException e) {
      throw new IOException("cannot delete dead letters in " + store.describe() + ": " + e, e);
    }
  }

  private static DeadLetter letter(ResultSet rows) throws SQLException {
    return new DeadLetter(
        rows.getString(1),
        rows.getString(2),
        rows.getLong(3),
        rows.getString(4),
        rows.getString(5),
        rows.getString(6),
        rows.getString(7),
        Instant.ofEpochMilli(rows.getLong(8)),
        Instant.ofEpochMilli(rows.getLong(9)),
        rows.getInt(10),
        rows.getString(11),
        rows.getString(12));
  }
}
