package dev.memstack.host.security;

import dev.memstack.host.shared.SharedStore;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The managed API tokens of shared mode: table {@value #TABLE} of the shared database (schema
 * component {@code api-tokens}), one row per token keyed by its id, so that a lookup by the id a
 * presented token carries is one primary-key read. It holds each token's salted digest, never a
 * secret. Thread-safe; every call takes a connection of the shared pool.
 */
final class PostgresTokenStore implements TokenStore {

  static final String TABLE = "memstack_api_tokens";

  static final List<String> SCHEMA =
      List.of(
          "CREATE TABLE IF NOT EXISTS "
              + TABLE
              + " (id text PRIMARY KEY, name text NOT NULL, role text NOT NULL, owner_binding"
              + " text, digest text NOT NULL, created_at timestamptz NOT NULL, last_used_at"
              + " timestamptz)");

  private static final String COLUMNS =
      "id, name, role, owner_binding, digest, created_at, last_used_at";

  private final SharedStore store;

  /**
   * Creates or upgrades the table (once across hosts).
   *
   * @throws IllegalStateException naming the database when it cannot be set up
   */
  PostgresTokenStore(SharedStore store) {
    this.store = store;
    store.migrateAtStart("api-tokens", SCHEMA, "API token table");
  }

  @Override
  public List<StoredToken> all() {
    return select(
        "read the tokens",
        "SELECT " + COLUMNS + " FROM " + TABLE + " ORDER BY created_at, id",
        List.of());
  }

  @Override
  public Optional<StoredToken> find(String id) {
    return select(
            "read a token", "SELECT " + COLUMNS + " FROM " + TABLE + " WHERE id = ?", List.of(id))
        .stream()
        .findFirst();
  }

  @Override
  public Set<String> existing(Collection<String> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    try (Connection connection = store.dataSource().getConnection();
        PreparedStatement query =
            connection.prepareStatement("SELECT id FROM " + TABLE + " WHERE id = ANY (?)")) {
      query.setArray(1, connection.createArrayOf("text", ids.toArray()));
      Set<String> found = new HashSet<>();
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          found.add(rows.getString(1));
        }
      }
      return found;
    } catch (SQLException e) {
      throw failure("look for revoked tokens", e);
    }
  }

  @Override
  public void add(StoredToken token) {
    Caller caller = token.caller();
    update(
        "store a token",
        "INSERT INTO " + TABLE + " (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?)",
        token.id(),
        caller.name(),
        caller.role().name(),
        caller.owner() == null ? null : caller.owner().pattern(),
        token.digest(),
        token.createdAt(),
        token.lastUsedAt());
  }

  @Override
  public boolean remove(String id) {
    return update("revoke a token", "DELETE FROM " + TABLE + " WHERE id = ?", id) > 0;
  }

  @Override
  public void used(String id, Instant at) {
    // another host may have written a later use already
    update(
        "record a token's use",
        "UPDATE "
            + TABLE
            + " SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
        at,
        id,
        at);
  }

  @Override
  public boolean shared() {
    return true;
  }

  private List<StoredToken> select(String action, String sql, List<?> parameters) {
    try {
      return store.select(sql, parameters, PostgresTokenStore::token);
    } catch (SQLException e) {
      throw failure(action, e);
    }
  }

  private int update(String action, String sql, Object... values) {
    try (Connection connection = store.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      SharedStore.bind(statement, java.util.Arrays.asList(values));
      return statement.executeUpdate();
    } catch (SQLException e) {
      throw failure(action, e);
    }
  }

  private static StoredToken token(ResultSet row) throws SQLException {
    String owner = row.getString(4);
    Timestamp lastUsed = row.getTimestamp(7);
    Caller caller =
        new Caller(
            row.getString(2),
            Role.valueOf(row.getString(3)),
            owner == null ? null : OwnerBinding.of(owner),
            row.getString(1));
    return new StoredToken(
        caller,
        row.getString(5),
        row.getTimestamp(6).toInstant(),
        lastUsed == null ? null : lastUsed.toInstant());
  }

  private UncheckedIOException failure(String action, SQLException e) {
    return store.failure("API token table", action, e);
  }
}
