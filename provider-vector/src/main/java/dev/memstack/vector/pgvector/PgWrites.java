package dev.memstack.vector.pgvector;

import static dev.memstack.vector.store.MemoryVectorStore.CREATED_AT;
import static dev.memstack.vector.store.MemoryVectorStore.ID;
import static dev.memstack.vector.store.MemoryVectorStore.MODEL;

import dev.memstack.spi.OwnerKey;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.StoreWrites;
import dev.memstack.vector.store.Trust;
import dev.memstack.vector.store.TrustChange;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The write side of a pgvector store: upserts in multi-row {@code INSERT ... ON CONFLICT}
 * statements, or for a call of at least {@link #COPY_ROWS} records by a binary {@code COPY} (into
 * the table when none of the ids is stored, else into a temporary table and one {@code INSERT ...
 * SELECT ... ON CONFLICT}; one transaction per call either way), deletes by id or filter, metadata
 * updates under a row lock, and the feedback counts and trust in {@code <table>_feedback}.
 * Stateless beyond the {@link PgTable}.
 */
final class PgWrites implements StoreWrites {

  private static final Logger log = LoggerFactory.getLogger(PgVectorMemoryStore.class);

  /** Rows per multi-row INSERT (12 parameters each, far below PostgreSQL's 65535). */
  private static final int INSERT_ROWS = 200;

  /** Calls with at least this many records load them by {@code COPY} instead of INSERTs. */
  static final int COPY_ROWS = 256;

  /** The temporary table a COPY fills, dropped at commit. */
  private static final String STAGING = "memstack_copy_staging";

  /** A duplicate key. */
  private static final String UNIQUE_VIOLATION = "23505";

  /** Lack of a privilege (here: to create temporary tables). */
  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  /** False once the database refused a temporary table: row INSERTs from then on. */
  private volatile boolean copyAllowed = true;

  private static final String COLUMN_LIST =
      "id, content, metadata, embedding, agent, owner, scope, status, type, conversation,"
          + " turn_id, created_at";

  private static final String INSERT_COLUMNS = " (" + COLUMN_LIST + ")";

  private static final String ON_CONFLICT =
      " ON CONFLICT (id) DO UPDATE SET content = EXCLUDED.content, metadata = EXCLUDED.metadata,"
          + " embedding = EXCLUDED.embedding, agent = EXCLUDED.agent, owner = EXCLUDED.owner,"
          + " scope = EXCLUDED.scope, status = EXCLUDED.status, type = EXCLUDED.type,"
          + " conversation = EXCLUDED.conversation, turn_id = EXCLUDED.turn_id,"
          + " created_at = EXCLUDED.created_at";

  private final PgTable table;

  PgWrites(PgTable table) {
    this.table = table;
  }

  public void add(List<Document> documents) {
    Objects.requireNonNull(documents, "documents");
    if (documents.isEmpty()) {
      return;
    }
    List<MemoryRecord> records = new ArrayList<>(documents.size());
    Map<String, Integer> seen = new LinkedHashMap<>();
    for (Document document : documents) {
      MemoryRecord record = MemoryRecord.fromDocument(document);
      Integer earlier = seen.put(record.id(), records.size());
      if (earlier != null) {
        records.set(earlier, record); // the last one wins, as in a sequence of upserts
      } else {
        records.add(record);
      }
    }
    List<float[]> vectors =
        table.embedder.embedPassages(records.stream().map(MemoryRecord::embeddingText).toList());
    try (Connection connection = table.dataSource.getConnection()) {
      PgVectors.sendBinary(connection);
      connection.setAutoCommit(false);
      try {
        if (records.size() >= COPY_ROWS && copyAllowed) {
          copyUpsert(connection, records, vectors);
        } else {
          upsert(connection, records, vectors);
        }
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw table.failure("add " + records.size() + " documents", e);
    }
  }

  /** Row INSERTs, {@link #INSERT_ROWS} records a statement. */
  private void upsert(Connection connection, List<MemoryRecord> records, List<float[]> vectors)
      throws SQLException {
    for (int start = 0; start < records.size(); start += INSERT_ROWS) {
      int end = Math.min(records.size(), start + INSERT_ROWS);
      insertRows(connection, records.subList(start, end), vectors.subList(start, end));
    }
  }

  private void insertRows(Connection connection, List<MemoryRecord> records, List<float[]> vectors)
      throws SQLException {
    StringBuilder sql =
        new StringBuilder("INSERT INTO ")
            .append(table.schema.table())
            .append(INSERT_COLUMNS)
            .append(" VALUES ");
    for (int i = 0; i < records.size(); i++) {
      sql.append(i == 0 ? "" : ", ").append("(?, ?, ?::jsonb, ?::vector, ?, ?, ?, ?, ?, ?, ?, ?)");
    }
    sql.append(ON_CONFLICT);
    try (PreparedStatement insert = connection.prepareStatement(sql.toString())) {
      int p = 1;
      for (int i = 0; i < records.size(); i++) {
        MemoryRecord r = records.get(i);
        insert.setString(p++, r.id());
        insert.setString(p++, r.text());
        insert.setString(p++, PgTable.JSON.writeValueAsString(r.metadata()));
        insert.setObject(p++, PgVectors.parameter(vectors.get(i)));
        insert.setString(p++, r.agent().value());
        insert.setString(p++, r.owner() == null ? null : r.owner().value());
        insert.setString(p++, r.scope().name());
        insert.setString(p++, r.status().name());
        insert.setString(p++, r.type());
        insert.setString(p++, r.conversation());
        insert.setString(p++, r.turn());
        insert.setObject(p++, PgFilter.timestamp(r.createdAt().toEpochMilli()));
      }
      insert.executeUpdate();
    }
  }

  /**
   * The same upsert for many records by {@code COPY} in binary ({@link PgBinaryCopy}). When none of
   * the ids is stored yet (a bulk load, or a batch of new turns), the rows are copied straight into
   * the table under a savepoint; should another writer store one of the ids meanwhile, the unique
   * key stops the {@code COPY}, the savepoint is rolled back, and the upsert below runs instead.
   * Otherwise: one {@code COPY} into a temporary table dropped at commit, then one {@code INSERT
   * ... SELECT ... ON CONFLICT} from it, so a concurrent writer of the same id waits and is
   * overwritten exactly as with the row INSERTs. Row INSERTs when the role may not create temporary
   * tables.
   */
  private void copyUpsert(Connection connection, List<MemoryRecord> records, List<float[]> vectors)
      throws SQLException {
    if (noneStored(connection, records)) {
      Savepoint savepoint = connection.setSavepoint();
      try {
        copy(connection, table.schema.table(), records, vectors);
        connection.releaseSavepoint(savepoint);
        return;
      } catch (SQLException e) {
        if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
          throw e;
        }
        connection.rollback(savepoint);
      }
    }
    if (!staging(connection)) {
      upsert(connection, records, vectors);
      return;
    }
    copy(connection, STAGING, records, vectors);
    try (Statement statement = connection.createStatement()) {
      statement.executeUpdate(
          "INSERT INTO "
              + table.schema.table()
              + INSERT_COLUMNS
              + " SELECT "
              + COLUMN_LIST
              + " FROM "
              + STAGING
              + ON_CONFLICT);
      statement.execute("DROP TABLE " + STAGING);
    }
  }

  /** Whether no record of {@code records} is stored (one lookup of the primary key). */
  private boolean noneStored(Connection connection, List<MemoryRecord> records)
      throws SQLException {
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT EXISTS (SELECT 1 FROM " + table.schema.table() + " WHERE id = ANY (?))")) {
      query.setArray(
          1, PgTable.textArray(connection, records.stream().map(MemoryRecord::id).toList()));
      try (ResultSet row = query.executeQuery()) {
        row.next();
        return !row.getBoolean(1);
      }
    }
  }

  /** One binary {@code COPY} of the records into {@code target} (the table or the staging one). */
  private static void copy(
      Connection connection, String target, List<MemoryRecord> records, List<float[]> vectors)
      throws SQLException {
    CopyIn copy =
        connection
            .unwrap(PGConnection.class)
            .getCopyAPI()
            .copyIn("COPY " + target + INSERT_COLUMNS + " FROM STDIN (FORMAT binary)");
    try {
      PgBinaryCopy rows = new PgBinaryCopy(copy);
      for (int i = 0; i < records.size(); i++) {
        MemoryRecord r = records.get(i);
        rows.row(12)
            .text(r.id())
            .text(r.text())
            .jsonb(PgTable.JSON.writeValueAsString(r.metadata()))
            .vector(vectors.get(i))
            .text(r.agent().value())
            .text(r.owner() == null ? null : r.owner().value())
            .text(r.scope().name())
            .text(r.status().name())
            .text(r.type())
            .text(r.conversation())
            .text(r.turn())
            // milliseconds, as the INSERT path binds them
            .timestamptz(r.createdAt().toEpochMilli());
      }
      rows.end();
    } finally {
      if (copy.isActive()) {
        copy.cancelCopy();
      }
    }
  }

  /**
   * Creates the temporary table a COPY fills; false, and row INSERTs for good, when the role may
   * not create temporary tables (the transaction goes on from a savepoint).
   */
  private boolean staging(Connection connection) throws SQLException {
    Savepoint savepoint = connection.setSavepoint();
    try (Statement statement = connection.createStatement()) {
      statement.execute(
          "CREATE TEMPORARY TABLE "
              + STAGING
              + " (LIKE "
              + table.schema.table()
              + " INCLUDING DEFAULTS) ON COMMIT DROP");
      connection.releaseSavepoint(savepoint);
      return true;
    } catch (SQLException e) {
      if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
        throw e;
      }
      connection.rollback(savepoint);
      copyAllowed = false;
      log.info(
          "pgvector store {}: no temporary tables for this role ({}); large adds use INSERTs",
          table.schema.displayName(),
          e.getMessage());
      return false;
    }
  }

  @Override
  public void delete(List<String> ids) {
    Objects.requireNonNull(ids, "ids");
    if (ids.isEmpty()) {
      return;
    }
    try (Connection connection = table.dataSource.getConnection();
        PreparedStatement delete =
            connection.prepareStatement(
                "DELETE FROM " + table.schema.table() + " WHERE id = ANY (?)")) {
      delete.setArray(1, PgTable.textArray(connection, ids));
      delete.executeUpdate();
    } catch (SQLException e) {
      throw table.failure("delete " + ids.size() + " documents", e);
    }
  }

  @Override
  public void delete(Filter.Expression filter) {
    Objects.requireNonNull(filter, "filter must not be null (delete(List) deletes by id)");
    PgFilter.Sql where = PgFilter.where(filter);
    try (Connection connection = table.dataSource.getConnection();
        PreparedStatement delete =
            table.prepareWhere(connection, "DELETE FROM " + table.schema.table(), where)) {
      int deleted = delete.executeUpdate();
      log.debug("deleted {} records from {}", deleted, table.schema.displayName());
    } catch (SQLException e) {
      throw table.failure("delete by filter", e);
    }
  }

  @Override
  public boolean updateMetadata(String id, Map<String, Object> changes) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(changes, "changes");
    for (String key : List.of(ID, CREATED_AT, MODEL)) {
      if (changes.containsKey(key)) {
        throw new IllegalArgumentException("metadata '" + key + "' cannot be changed");
      }
    }
    try (Connection connection = table.dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        Optional<Document> current = table.select(connection, "t.id = ?", List.of(id), true);
        if (current.isEmpty()) {
          connection.rollback();
          return false;
        }
        Map<String, Object> metadata = MemoryRecord.changed(current.get().getMetadata(), changes);
        MemoryRecord r =
            MemoryRecord.fromDocument(
                Document.builder().id(id).text(current.get().getText()).metadata(metadata).build());
        try (PreparedStatement update =
            connection.prepareStatement(
                "UPDATE "
                    + table.schema.table()
                    + " SET metadata = ?::jsonb, agent = ?, owner = ?, scope = ?, status = ?,"
                    + " type = ?, conversation = ?, turn_id = ? WHERE id = ?")) {
          update.setString(1, PgTable.JSON.writeValueAsString(r.metadata()));
          update.setString(2, r.agent().value());
          update.setString(3, r.owner() == null ? null : r.owner().value());
          update.setString(4, r.scope().name());
          update.setString(5, r.status().name());
          update.setString(6, r.type());
          update.setString(7, r.conversation());
          update.setString(8, r.turn());
          update.setString(9, id);
          update.executeUpdate();
        }
        connection.commit();
        return true;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw table.failure("update metadata of " + id, e);
    }
  }

  /** Feedback of a record that another host deletes at the same moment: tried again. */
  private static final String FOREIGN_KEY_VIOLATION = "23503";

  /**
   * One statement, {@code INSERT ... SELECT} of the ids that exist, {@code ON CONFLICT (owner, id)
   * DO UPDATE} adding to the counts and setting the trust to its faded value plus the change
   * ({@link Trust#apply}, in SQL) {@code RETURNING} the rows: PostgreSQL applies each update
   * atomically on the row, so concurrent changes from any number of hosts add up and nothing is
   * read back first. A host whose clock is behind the row's time fades nothing. Rows are taken in
   * id order, so two concurrent calls lock them in the same order and cannot deadlock.
   */
  @Override
  public Map<String, Trust> addTrust(
      OwnerKey owner, Collection<String> distinct, TrustChange change) {
    String age = "(EXCLUDED.trust_at - f.trust_at)";
    String faded =
        "CASE WHEN f.trust = 0 OR "
            + age
            + " >= ? THEN 0 ELSE f.trust * power(0.5, GREATEST(0, "
            + age
            + ")::float8 / ?) END";
    String sql =
        "INSERT INTO "
            + table.schema.feedbackTable()
            + " AS f (owner, id, uses, wrongs, trust, trust_at) SELECT ?, t.id, ?, ?, ?, ? FROM "
            + table.schema.table()
            + " t WHERE t.id = ANY (?) ORDER BY t.id"
            + " ON CONFLICT (owner, id) DO UPDATE SET uses = f.uses + EXCLUDED.uses,"
            + " wrongs = f.wrongs + EXCLUDED.wrongs,"
            + " trust = GREATEST(?, LEAST(?, "
            + faded
            + " + EXCLUDED.trust)),"
            + " trust_at = GREATEST(f.trust_at, EXCLUDED.trust_at)"
            + " RETURNING id, uses, wrongs, trust, trust_at, hidden";
    long halfLife = change.halfLife().toMillis();
    double delta = Math.max(-Trust.LIMIT, Math.min(Trust.LIMIT, change.delta()));
    for (int attempt = 1; ; attempt++) {
      try (Connection connection = table.dataSource.getConnection();
          PreparedStatement insert = connection.prepareStatement(sql)) {
        insert.setString(1, owner.value());
        insert.setLong(2, change.uses());
        insert.setLong(3, change.wrongs());
        insert.setDouble(4, delta);
        insert.setLong(5, change.at());
        insert.setArray(6, PgTable.textArray(connection, distinct));
        insert.setDouble(7, -Trust.LIMIT);
        insert.setDouble(8, Trust.LIMIT);
        insert.setDouble(9, Trust.FORGOTTEN_HALF_LIVES * halfLife);
        insert.setDouble(10, halfLife);
        return trustRows(insert);
      } catch (SQLException e) {
        if (FOREIGN_KEY_VIOLATION.equals(e.getSQLState()) && attempt < 3) {
          continue; // a record was deleted between the SELECT and the key check
        }
        throw table.failure("change trust of " + distinct.size() + " ids", e);
      }
    }
  }

  /** The rows of a query of {@code id, uses, wrongs, trust, trust_at, hidden}, by id. */
  private static Map<String, Trust> trustRows(PreparedStatement query) throws SQLException {
    Map<String, Trust> rows = new LinkedHashMap<>();
    try (ResultSet result = query.executeQuery()) {
      while (result.next()) {
        rows.put(result.getString(1), trust(result, 2));
      }
    }
    return rows;
  }

  /** The trust row in the columns {@code uses, wrongs, trust, trust_at, hidden} from {@code at}. */
  private static Trust trust(ResultSet row, int at) throws SQLException {
    return new Trust(
        row.getLong(at),
        row.getLong(at + 1),
        row.getDouble(at + 2),
        row.getLong(at + 3),
        row.getBoolean(at + 4));
  }

  @Override
  public Map<String, Trust> trust(OwnerKey owner, Collection<String> ids) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(ids, "ids");
    if (ids.isEmpty()) {
      return Map.of();
    }
    Map<String, Trust> rows = new LinkedHashMap<>();
    table.query(
        "read trust of " + ids.size() + " ids",
        "SELECT id, uses, wrongs, trust, trust_at, hidden FROM "
            + table.schema.feedbackTable()
            + " WHERE owner = ? AND id = ANY (?)",
        row -> rows.put(row.getString(1), trust(row, 2)),
        owner.value(),
        ids);
    return rows;
  }

  @Override
  public boolean hide(OwnerKey owner, String id, boolean hidden) {
    // shown again, the wrong count restarts from zero (Trust#hidden)
    return table.update(
            "hide or show a record for an owner",
            "UPDATE "
                + table.schema.feedbackTable()
                + " SET hidden = ?, wrongs = CASE WHEN ? THEN wrongs ELSE 0 END"
                + " WHERE owner = ? AND id = ?",
            hidden,
            hidden,
            owner.value(),
            id)
        > 0;
  }

  /**
   * {@code VACUUM}s the table and its feedback, history and contradictions tables (autocommit: it
   * cannot run in a transaction): the rows an erasure deleted leave their pages.
   */
  void vacuum() {
    try (Connection connection = table.dataSource.getConnection();
        java.sql.Statement vacuum = connection.createStatement()) {
      connection.setAutoCommit(true);
      vacuum.execute("VACUUM " + table.schema.table());
      vacuum.execute("VACUUM " + table.schema.feedbackTable());
      vacuum.execute("VACUUM " + table.schema.historyTable());
      vacuum.execute("VACUUM " + table.schema.contradictionsTable());
    } catch (SQLException e) {
      throw table.failure("vacuum after deletes", e);
    }
  }

  @Override
  public long deleteFeedback(OwnerKey owner) {
    return table.deleteOwnerRows(table.schema.feedbackTable(), owner);
  }
}
