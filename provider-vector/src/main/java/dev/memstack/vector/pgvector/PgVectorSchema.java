package dev.memstack.vector.pgvector;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The store's tables and indexes, by name, and the statements that create and check them. All
 * creation is idempotent ({@code IF NOT EXISTS}) and runs under a transaction-scoped advisory lock,
 * so two instances starting at once do not race.
 *
 * <p>Layout: Spring AI {@code PgVectorStore}'s columns ({@code id text}, {@code content}, {@code
 * metadata jsonb}, {@code embedding vector(n)}) plus one real column per isolation field, an HNSW
 * cosine index (made when a search first needs it, by {@link PgApproximateIndex}), btree indexes
 * for the filters, a covering btree index of each owner's records with their vectors (for
 * index-only exact searches), a GIN full-text index, {@code <table>_meta} with the embedding model
 * id and dimension, and {@code <table>_feedback} with each owner's feedback count, wrong count and
 * trust per record ({@code PRIMARY KEY (owner, id)}, the id a foreign key to the records table with
 * {@code ON DELETE CASCADE}), and {@code <table>_types} with each agent's custom memory types
 * ({@code PRIMARY KEY (agent, key)}).
 */
final class PgVectorSchema {

  /** pgvector releases: HNSW needs 0.5.0, iterative index scans 0.8.0. */
  static final int[] MIN_VERSION = {0, 5, 0};

  static final int[] ITERATIVE_SCAN_VERSION = {0, 8, 0};

  /** HNSW indexes hold vectors of at most this many dimensions. */
  static final int MAX_INDEXED_DIMENSION = 2000;

  /**
   * The covering owner index holds vectors of at most this many dimensions: a btree entry must fit
   * in 2,704 bytes, and a 384-dimension vector takes 1,544 of them, which leaves over 1,100 bytes
   * for the owner key (at most 256 characters), the agent id (64), scope, status and the record id.
   */
  static final int MAX_COVERED_DIMENSION = 384;

  static final String META_MODEL = "model_id";
  static final String META_DIMENSION = "dimension";
  static final String META_LAYOUT = "layout_version";
  static final String LAYOUT_VERSION = "1";

  private static final Set<String> COLUMNS =
      Set.of(
          "id",
          "content",
          "metadata",
          "embedding",
          "agent",
          "owner",
          "scope",
          "status",
          "type",
          "conversation",
          "turn_id",
          "created_at");

  private final String schema;
  private final String table;
  private final int hnswM;
  private final int hnswEfConstruction;
  private final String textSearchConfig;

  PgVectorSchema(PgVectorSettings settings) {
    this.schema = settings.schema();
    this.table = settings.table();
    this.hnswM = settings.hnswM();
    this.hnswEfConstruction = settings.hnswEfConstruction();
    this.textSearchConfig = settings.textSearchConfig();
  }

  /**
   * {@code to_tsvector('<config>'::regconfig, <column>)}: the expression of the GIN index, which a
   * query must repeat exactly for the index to be used.
   */
  String tsvector(String column) {
    return "to_tsvector('" + textSearchConfig + "'::regconfig, " + column + ")";
  }

  /**
   * @throws IllegalStateException when the database has no such text search configuration
   */
  void checkTextSearchConfig(Connection connection) throws SQLException {
    long found =
        oneRow(
            connection,
            "SELECT count(*) FROM pg_ts_config WHERE cfgname = ?",
            textSearchConfig,
            row -> row.getLong(1));
    if (found == 0) {
      throw new IllegalStateException(
          PgVectorSettings.TEXT_SEARCH_CONFIG
              + ": '"
              + textSearchConfig
              + "' is not a text search configuration of this database (psql \\dF lists"
              + " them; simple and english always exist)");
    }
  }

  /** The schema's name. */
  String tableSchema() {
    return schema;
  }

  /** {@code "schema"."table"}. */
  String table() {
    return quote(schema) + "." + quote(table);
  }

  /** {@code "schema"."table_meta"}. */
  String metaTable() {
    return quote(schema) + "." + quote(table + "_meta");
  }

  /** {@code "schema"."table_feedback"}: owner, record id, count. */
  String feedbackTable() {
    return quote(schema) + "." + quote(table + "_feedback");
  }

  /** {@code "schema"."table_history"}: the changes of each record, kept after its deletion. */
  String historyTable() {
    return quote(schema) + "." + quote(table + "_history");
  }

  /** {@code "schema"."table_contradictions"}: the open contradictions (the inbox). */
  String contradictionsTable() {
    return quote(schema) + "." + quote(table + "_contradictions");
  }

  /** {@code "schema"."table_types"}: agent, key, name, description, icon. */
  String typesTable() {
    return quote(schema) + "." + quote(table + "_types");
  }

  String hnswIndex() {
    return table + "_embedding_hnsw";
  }

  /** {@code schema.table}, for messages. */
  String displayName() {
    return schema + "." + table;
  }

  /** Serialises schema changes of this table across connections until the transaction ends. */
  void lock(Connection connection) throws SQLException {
    try (PreparedStatement lock =
        connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
      lock.setString(1, "memstack-pgvector:" + displayName());
      lock.execute();
    }
  }

  /**
   * The installed pgvector version, or an error that says how to install it.
   *
   * @throws IllegalStateException when the extension is missing or too old
   */
  static String checkExtension(Connection connection) throws SQLException {
    String database = connection.getCatalog();
    Optional<String> installed =
        single(connection, "SELECT extversion FROM pg_extension WHERE extname = 'vector'");
    if (installed.isEmpty()) {
      Optional<String> available =
          single(
              connection,
              "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'");
      if (available.isPresent()) {
        throw new IllegalStateException(
            "the pgvector extension is not enabled in database '"
                + database
                + "': run CREATE EXTENSION vector; in that database as its owner or a superuser"
                + " (pgvector "
                + available.get()
                + " is installed on the server)");
      }
      throw new IllegalStateException(
          "the pgvector extension is not installed on the PostgreSQL server of database '"
              + database
              + "': install pgvector 0.8 or newer (e.g. the postgresql-<version>-pgvector"
              + " package, or scripts/pgvector-setup.sh here), then run CREATE EXTENSION vector;"
              + " in that database");
    }
    if (compare(installed.get(), MIN_VERSION) < 0) {
      throw new IllegalStateException(
          "pgvector "
              + installed.get()
              + " in database '"
              + database
              + "' has no HNSW index; 0.5.0 or newer is required (0.8.0 or newer recommended):"
              + " ALTER EXTENSION vector UPDATE;");
    }
    return installed.get();
  }

  /** Whether {@code version} (e.g. {@code 0.8.0}) is at least {@code minimum}. */
  static boolean atLeast(String version, int[] minimum) {
    return compare(version, minimum) >= 0;
  }

  private static int compare(String version, int[] other) {
    String[] parts = version.split("[.-]");
    for (int i = 0; i < other.length; i++) {
      int part;
      try {
        part = i < parts.length ? Integer.parseInt(parts[i]) : 0;
      } catch (NumberFormatException e) {
        part = 0;
      }
      if (part != other[i]) {
        return Integer.compare(part, other[i]);
      }
    }
    return 0;
  }

  /** Creates the schema and the meta table when missing. */
  void createMeta(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("CREATE SCHEMA IF NOT EXISTS " + quote(schema));
      statement.execute(
          "CREATE TABLE IF NOT EXISTS "
              + metaTable()
              + " (key text PRIMARY KEY, value text NOT NULL)");
    }
  }

  /** The meta table's rows. */
  Map<String, String> readMeta(Connection connection) throws SQLException {
    Map<String, String> meta = new LinkedHashMap<>();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT key, value FROM " + metaTable())) {
      while (rows.next()) {
        meta.put(rows.getString(1), rows.getString(2));
      }
    }
    return meta;
  }

  void writeMeta(Connection connection, String modelId, int dimension) throws SQLException {
    try (PreparedStatement upsert =
        connection.prepareStatement(
            "INSERT INTO "
                + metaTable()
                + " (key, value) VALUES (?, ?), (?, ?), (?, ?)"
                + " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")) {
      upsert.setString(1, META_MODEL);
      upsert.setString(2, modelId);
      upsert.setString(3, META_DIMENSION);
      upsert.setString(4, Integer.toString(dimension));
      upsert.setString(5, META_LAYOUT);
      upsert.setString(6, LAYOUT_VERSION);
      upsert.executeUpdate();
    }
  }

  /** Whether the records table exists. */
  boolean tableExists(Connection connection) throws SQLException {
    return oneRow(
        connection, "SELECT to_regclass(?) IS NOT NULL", table(), row -> row.getBoolean(1));
  }

  /**
   * Checks that an existing table has this store's columns and returns the dimension of its {@code
   * embedding} column.
   *
   * @throws IllegalStateException when the table was made by something else
   */
  int checkTable(Connection connection) throws SQLException {
    Set<String> found = new TreeSet<>();
    int dimension = -1;
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a"
                + " WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped")) {
      query.setString(1, table());
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          found.add(rows.getString(1));
          if (rows.getString(1).equals("embedding")) {
            String type = rows.getString(2);
            if (type.startsWith("vector(") && type.endsWith(")")) {
              dimension = Integer.parseInt(type.substring(7, type.length() - 1));
            }
          }
        }
      }
    }
    Set<String> missing = new TreeSet<>(COLUMNS);
    missing.removeAll(found);
    if (!missing.isEmpty() || dimension < 0) {
      throw new IllegalStateException(
          "table "
              + displayName()
              + " exists but was not created by the memstack pgvector store (missing columns "
              + missing
              + (dimension < 0 ? ", or embedding is not a vector(n) column" : "")
              + "); configure another schema or table");
    }
    return dimension;
  }

  /** Creates the records table and its indexes when missing. */
  void createTable(Connection connection, int dimension) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (String ddl : createStatements(dimension)) {
        statement.execute(ddl);
      }
    }
    migrateFeedback(connection);
  }

  /** The DDL, in order; every statement is idempotent. */
  List<String> createStatements(int dimension) {
    String t = table();
    List<String> ddl = new ArrayList<>();
    ddl.add(
        "CREATE TABLE IF NOT EXISTS "
            + t
            + " (\n"
            + "  id text PRIMARY KEY,\n"
            + "  content text NOT NULL,\n"
            + "  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,\n"
            + "  embedding vector("
            + dimension
            + "),\n"
            + "  agent text NOT NULL,\n"
            + "  owner text,\n"
            + "  scope text NOT NULL,\n"
            + "  status text NOT NULL,\n"
            + "  type text NOT NULL,\n"
            + "  conversation text,\n"
            + "  turn_id text,\n"
            + "  created_at timestamptz NOT NULL,\n"
            + "  CONSTRAINT "
            + quote(table + "_personal_owner")
            + " CHECK (owner IS NOT NULL OR scope <> 'PERSONAL')\n"
            + ")");
    ddl.addAll(indexStatements(dimension));
    ddl.addAll(feedbackStatements());
    ddl.addAll(historyStatements());
    ddl.add(typesStatement());
    ddl.addAll(contradictionStatements());
    return ddl;
  }

  List<String> indexStatements(int dimension) {
    String t = table();
    List<String> ddl = new ArrayList<>();
    // no HNSW index here: it is made when a search first needs it (PgApproximateIndex)
    ddl.add(index("owner", t, "btree (owner, agent, created_at)"));
    if (dimension <= MAX_COVERED_DIMENSION) {
      // an owner's records with their vectors, so that the exact search of one owner is an
      // index-only scan over a few pages instead of one heap page per record
      ddl.add(
          index("owner_vector", t, "btree (owner, agent, scope, status) INCLUDE (id, embedding)"));
      // the shared records (TEAM, GLOBAL) with their vectors, read by every owner's search: an
      // index-only scan too; partial, so only as large as the shared records
      ddl.add(
          index(
              "shared_vector",
              t,
              "btree (scope, agent, status) INCLUDE (id, embedding) WHERE scope <> 'PERSONAL'"));
    }
    // the owners of an agent in key order (list_owners), without the shared rows
    ddl.add(index("owners", t, "btree (agent, owner COLLATE \"C\") WHERE scope = 'PERSONAL'"));
    ddl.add(index("scope", t, "btree (scope, agent)"));
    ddl.add(index("agent_created", t, "btree (agent, created_at)"));
    ddl.add(index("turn", t, "btree (turn_id)"));
    ddl.add(index("conversation", t, "btree (conversation)"));
    ddl.add(index("fts_" + textSearchConfig, t, "gin (" + tsvector("content") + ")"));
    return ddl;
  }

  /** {@code CREATE TABLE IF NOT EXISTS name (columns...)}, one column or constraint a line. */
  private static String tableStatement(String name, List<String> columns) {
    return "CREATE TABLE IF NOT EXISTS " + name + " (\n  " + String.join(",\n  ", columns) + "\n)";
  }

  /** An index of a side table: the end of its name and its {@code USING} clause. */
  private record SideIndex(String suffix, String definition) {}

  /** A side table's statements: the table with these columns, then its indexes. */
  private List<String> sideTable(String name, List<String> columns, SideIndex... indexes) {
    List<String> ddl = new ArrayList<>();
    ddl.add(tableStatement(name, columns));
    for (SideIndex index : indexes) {
      ddl.add(index(index.suffix(), name, index.definition()));
    }
    return List.copyOf(ddl);
  }

  /**
   * The feedback table: one row per owner and record that the owner gave feedback for or marked
   * wrong, so a shared record carries no owner's counts or trust, erasing an owner is {@code DELETE
   * ... WHERE owner = ?} on the primary key, and deleting a record deletes its rows (the cascade
   * uses the {@code id} index). Columns: {@code uses} and {@code wrongs} (counts), {@code trust}
   * (the raw trust sum at {@code trust_at}, epoch millis: {@link dev.memstack.vector.store.Trust}),
   * {@code hidden} (the record is hidden from this owner's recall).
   */
  List<String> feedbackStatements() {
    return sideTable(
        feedbackTable(),
        List.of(
            "owner text NOT NULL",
            "id text NOT NULL REFERENCES " + table() + " (id) ON DELETE CASCADE",
            "uses bigint NOT NULL",
            "wrongs bigint NOT NULL DEFAULT 0",
            "trust double precision NOT NULL DEFAULT 0",
            "trust_at bigint NOT NULL DEFAULT 0",
            "hidden boolean NOT NULL DEFAULT false",
            "PRIMARY KEY (owner, id)"),
        new SideIndex("feedback_id", "btree (id)"));
  }

  /**
   * The history table: one row per change of a record, not tied to the records table (a forgotten
   * record keeps its {@code forgotten} row); erasing an owner deletes their rows by the owner
   * index.
   */
  List<String> historyStatements() {
    return sideTable(
        historyTable(),
        List.of(
            "seq bigserial PRIMARY KEY", "id text NOT NULL", "owner text", "event jsonb NOT NULL"),
        new SideIndex("history_id", "btree (id, seq)"),
        new SideIndex("history_owner", "btree (owner)"));
  }

  /**
   * The contradictions table: one row per open contradiction, naming two records of the table (no
   * foreign key: forgetting a record closes its rows itself, since a pending record whose
   * contradicted record is forgotten becomes active); erasing an owner deletes their rows by the
   * owner index.
   */
  List<String> contradictionStatements() {
    return sideTable(
        contradictionsTable(),
        List.of(
            "id text PRIMARY KEY",
            "agent text NOT NULL",
            "owner text",
            "scope text NOT NULL",
            "existing text NOT NULL",
            "incoming text NOT NULL",
            "created_at timestamptz NOT NULL"),
        new SideIndex("contradictions_owner", "btree (owner, agent, created_at)"),
        new SideIndex("contradictions_existing", "btree (existing)"),
        new SideIndex("contradictions_incoming", "btree (incoming)"));
  }

  /**
   * The custom types table: one row per agent and type key. Types belong to the agent, so erasing
   * an owner leaves them; they name no record, so deleting one leaves the records of its type.
   */
  String typesStatement() {
    return tableStatement(
        typesTable(),
        List.of(
            "agent text NOT NULL",
            "key text NOT NULL",
            "name text NOT NULL",
            "description text",
            "icon text",
            "created_at timestamptz NOT NULL DEFAULT now()",
            "PRIMARY KEY (agent, key)"));
  }

  /**
   * The trust columns added to a feedback table made before trust existed (counts only): one
   * statement, with constant defaults, so existing rows keep their counts at trust 0.
   */
  String addTrustColumnsStatement() {
    return "ALTER TABLE "
        + feedbackTable()
        + " ADD COLUMN IF NOT EXISTS wrongs bigint NOT NULL DEFAULT 0,"
        + " ADD COLUMN IF NOT EXISTS trust double precision NOT NULL DEFAULT 0,"
        + " ADD COLUMN IF NOT EXISTS trust_at bigint NOT NULL DEFAULT 0,"
        + " ADD COLUMN IF NOT EXISTS hidden boolean NOT NULL DEFAULT false";
  }

  /**
   * Adds the trust columns to a feedback table that lacks them (checked first, so that an
   * up-to-date table is not locked by an {@code ALTER TABLE} at every start).
   */
  void migrateFeedback(Connection connection) throws SQLException {
    long hidden =
        oneRow(
            connection,
            "SELECT count(*) FROM pg_attribute WHERE attrelid = ?::regclass"
                + " AND attname = 'hidden' AND NOT attisdropped",
            feedbackTable(),
            row -> row.getLong(1));
    if (hidden > 0) {
      return;
    }
    try (Statement statement = connection.createStatement()) {
      statement.execute(addTrustColumnsStatement());
    }
  }

  /** The HNSW index, built without blocking writes (outside a transaction block only). */
  String hnswIndexStatement() {
    return "CREATE INDEX CONCURRENTLY IF NOT EXISTS "
        + quote(hnswIndex())
        + " ON "
        + table()
        + " USING hnsw (embedding vector_cosine_ops) WITH (m = "
        + hnswM
        + ", ef_construction = "
        + hnswEfConstruction
        + ")";
  }

  private String index(String suffix, String t, String definition) {
    return "CREATE INDEX IF NOT EXISTS "
        + quote(table + "_" + suffix + "_idx")
        + " ON "
        + t
        + " USING "
        + definition;
  }

  static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  /** The one row that {@code sql} answers with its parameter set to {@code parameter}. */
  private static <T> T oneRow(
      Connection connection, String sql, String parameter, PgTable.RowReader<T> reader)
      throws SQLException {
    try (PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, parameter);
      try (ResultSet row = query.executeQuery()) {
        row.next();
        return reader.read(row);
      }
    }
  }

  private static Optional<String> single(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      return rows.next() ? Optional.ofNullable(rows.getString(1)) : Optional.empty();
    }
  }
}
