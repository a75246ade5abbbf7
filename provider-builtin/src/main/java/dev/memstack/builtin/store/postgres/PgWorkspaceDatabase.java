package dev.memstack.builtin.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.memstack.builtin.store.PgSettings;
import dev.memstack.support.PgConnections;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The builtin provider's tables in PostgreSQL and the pool that reaches them. The pool is built
 * directly over the driver's own {@link PGSimpleDataSource} ({@code DriverManager} does not see a
 * plugin's driver). The schema is versioned: {@link #STEPS} run in order, each once, recorded in
 * {@code memstack_schema} (component {@code builtin:<prefix>}, the table the host's shared store
 * uses too), in one transaction under an advisory lock, so hosts starting at once do not race.
 *
 * <p>Tables ({@code p} = the table prefix): {@code p_buckets} (one row per bucket: scope, agent,
 * owner, seeded flag, change version from a sequence, paragraph and token counts for ranking),
 * {@code p_files} (one row per file: content, size, enabled, sort order, created and updated time),
 * {@code p_chunks} (one row per paragraph of a file: its text, its tokens as a {@code simple}
 * {@code tsvector} with a GIN index). Every row carries the owner of its bucket (indexed), so an
 * owner is erased with one {@code DELETE} per table. Step 2 adds {@code p_conversations} (the
 * conversation buffer, {@link PgConversationBuffer}: one row per owner, agent and SHA-256 of the
 * conversation id, its kept messages as a {@code jsonb} array and its total message count; the
 * primary key starts with the owner, so an owner's rows are found by it). Step 3 adds {@code
 * p_erasures} (how many times each owner was erased, by the SHA-256 of the owner key, so that it
 * names nobody: a memory job that read an owner's files before an erasure writes nothing after it,
 * {@link PostgresWorkspaceStore#updateFenced}).
 */
public final class PgWorkspaceDatabase implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PgWorkspaceDatabase.class);

  private final PgSettings settings;
  private final HikariDataSource pool;

  /** The tables' qualified names. */
  public final String buckets;

  public final String files;
  public final String chunks;
  public final String versions;
  public final String conversations;
  public final String erasures;

  private PgWorkspaceDatabase(PgSettings settings, HikariDataSource pool) {
    this.settings = settings;
    this.pool = pool;
    this.buckets = table("buckets");
    this.files = table("files");
    this.chunks = table("chunks");
    this.versions = table("version_seq");
    this.conversations = table("conversations");
    this.erasures = table("erasures");
  }

  /**
   * Connects, and creates or upgrades the tables.
   *
   * @throws IllegalStateException naming the database when it cannot be reached or set up
   */
  public static PgWorkspaceDatabase open(PgSettings settings) {
    Objects.requireNonNull(settings, "settings");
    PGSimpleDataSource connections =
        PgConnections.source(
            settings.jdbcUrl(), settings.username(), settings.password(), "memstack-builtin");
    HikariConfig config = new HikariConfig();
    config.setPoolName("memstack-builtin-" + settings.schema() + "." + settings.tablePrefix());
    config.setDataSource(connections);
    config.setMaximumPoolSize(settings.poolSize());
    config.setMinimumIdle(1);
    // a call waits at most this long for a connection when the database is unreachable
    config.setConnectionTimeout(3000);
    // custom plans: a generic plan of the keyword search cannot see how few buckets a call reads
    // and may scan the GIN index of a common word across every owner instead
    config.setConnectionInitSql("SET jit = off; SET plan_cache_mode = force_custom_plan");
    HikariDataSource pool;
    try {
      pool = new HikariDataSource(config);
    } catch (HikariPool.PoolInitializationException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new IllegalStateException(
          "builtin store at " + settings.safeUrl() + ": " + cause.getMessage(), e);
    }
    PgWorkspaceDatabase database = new PgWorkspaceDatabase(settings, pool);
    try {
      database.migrate();
    } catch (SQLException | RuntimeException e) {
      pool.close();
      throw new IllegalStateException(
          "builtin store at "
              + settings.safeUrl()
              + ": cannot create its tables in schema "
              + settings.schema()
              + ": "
              + e.getMessage(),
          e);
    }
    return database;
  }

  /** The pool. */
  public DataSource dataSource() {
    return pool;
  }

  /** The settings. */
  public PgSettings settings() {
    return settings;
  }

  /** The SHA-256 of the owner key, in hex: how {@link #erasures} names an owner. */
  static String ownerHash(dev.memstack.spi.OwnerKey owner) {
    return dev.memstack.support.Digests.sha256Hex(owner.value());
  }

  /** {@code "schema"."<prefix><name>"}. */
  String table(String name) {
    return quote(settings.schema()) + "." + quote(settings.tablePrefix() + name);
  }

  /** The schema steps, in order; step {@code i} runs once, ever. */
  List<String> steps() {
    String p = settings.tablePrefix();
    String step1 =
        String.join(
            ";\n",
            "CREATE SEQUENCE IF NOT EXISTS " + versions,
            "CREATE TABLE IF NOT EXISTS "
                + buckets
                + " (bucket text PRIMARY KEY, scope text NOT NULL, agent text, owner text,"
                + " seeded boolean NOT NULL DEFAULT false, version bigint NOT NULL,"
                + " chunks bigint NOT NULL DEFAULT 0, tokens bigint NOT NULL DEFAULT 0,"
                + " CONSTRAINT "
                + quote(p + "buckets_owner")
                + " CHECK ((scope = 'PERSONAL') = (owner IS NOT NULL)))",
            "CREATE INDEX IF NOT EXISTS "
                + quote(p + "buckets_owner_idx")
                + " ON "
                + buckets
                + " (owner) WHERE owner IS NOT NULL",
            "CREATE INDEX IF NOT EXISTS "
                + quote(p + "buckets_scope_idx")
                + " ON "
                + buckets
                + " (scope, agent)",
            "CREATE TABLE IF NOT EXISTS "
                + files
                + " (bucket text NOT NULL REFERENCES "
                + buckets
                + " (bucket) ON DELETE CASCADE, path text NOT NULL, scope text NOT NULL,"
                + " agent text, owner text, content text NOT NULL, size bigint NOT NULL,"
                + " enabled boolean NOT NULL, sort_order int NOT NULL,"
                + " created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,"
                + " PRIMARY KEY (bucket, path))",
            "CREATE INDEX IF NOT EXISTS "
                + quote(p + "files_owner_idx")
                + " ON "
                + files
                + " (owner) WHERE owner IS NOT NULL",
            "CREATE TABLE IF NOT EXISTS "
                + chunks
                + " (bucket text NOT NULL, path text NOT NULL, chunk int NOT NULL,"
                + " scope text NOT NULL, agent text, owner text, line int NOT NULL,"
                + " text text NOT NULL, tokens tsvector NOT NULL, length int NOT NULL,"
                + " weighted boolean NOT NULL, updated_at timestamptz NOT NULL,"
                + " PRIMARY KEY (bucket, path, chunk), FOREIGN KEY (bucket, path) REFERENCES "
                + files
                + " (bucket, path) ON DELETE CASCADE)",
            "CREATE INDEX IF NOT EXISTS "
                + quote(p + "chunks_tokens_idx")
                + " ON "
                + chunks
                + " USING gin (tokens)",
            "CREATE INDEX IF NOT EXISTS "
                + quote(p + "chunks_owner_idx")
                + " ON "
                + chunks
                + " (owner) WHERE owner IS NOT NULL");
    String step2 =
        String.join(
            ";\n",
            "CREATE TABLE IF NOT EXISTS "
                + conversations
                + " (owner text NOT NULL, agent text NOT NULL, conversation text NOT NULL,"
                + " messages jsonb NOT NULL, total bigint NOT NULL,"
                + " updated_at timestamptz NOT NULL, PRIMARY KEY (owner, agent, conversation))");
    String step3 =
        "CREATE TABLE IF NOT EXISTS "
            + erasures
            + " (owner_hash text PRIMARY KEY, erasures bigint NOT NULL)";
    return List.of(step1, step2, step3);
  }

  private void migrate() throws SQLException {
    String component = "builtin:" + settings.schema() + "." + settings.tablePrefix();
    try (Connection connection = pool.getConnection()) {
      connection.setAutoCommit(false);
      try {
        try (PreparedStatement lock =
            connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
          lock.setString(1, "memstack-" + component);
          lock.execute();
        }
        String schemaTable = quote(settings.schema()) + ".memstack_schema";
        try (Statement statement = connection.createStatement()) {
          statement.execute("CREATE SCHEMA IF NOT EXISTS " + quote(settings.schema()));
          statement.execute(
              "CREATE TABLE IF NOT EXISTS "
                  + schemaTable
                  + " (component text NOT NULL, version int NOT NULL, applied_at timestamptz"
                  + " NOT NULL DEFAULT now(), PRIMARY KEY (component, version))");
        }
        int applied;
        try (PreparedStatement query =
            connection.prepareStatement(
                "SELECT coalesce(max(version), 0) FROM " + schemaTable + " WHERE component = ?")) {
          query.setString(1, component);
          try (ResultSet rows = query.executeQuery()) {
            rows.next();
            applied = rows.getInt(1);
          }
        }
        List<String> steps = steps();
        if (applied > steps.size()) {
          throw new IllegalStateException(
              "the tables are at schema version "
                  + applied
                  + ", newer than this plugin knows ("
                  + steps.size()
                  + "); upgrade the plugin");
        }
        for (int version = applied + 1; version <= steps.size(); version++) {
          try (Statement statement = connection.createStatement()) {
            for (String sql : steps.get(version - 1).split(";\n")) {
              statement.execute(sql);
            }
          }
          try (PreparedStatement insert =
              connection.prepareStatement(
                  "INSERT INTO " + schemaTable + " (component, version) VALUES (?, ?)")) {
            insert.setString(1, component);
            insert.setInt(2, version);
            insert.executeUpdate();
          }
          log.info(
              "builtin store {}: schema step {} of {} applied",
              settings.safeUrl(),
              version,
              component);
        }
        connection.commit();
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      }
    }
  }

  /**
   * {@code VACUUM}s every table (outside a transaction: it cannot run in one), so that the pages of
   * deleted rows are cleaned, not only marked dead. A transaction that is still open elsewhere
   * keeps the dead rows it may see until the next vacuum.
   */
  public void vacuum() {
    try (Connection connection = pool.getConnection();
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(true);
      statement.execute("VACUUM " + chunks);
      statement.execute("VACUUM " + files);
      statement.execute("VACUUM " + buckets);
    } catch (SQLException e) {
      throw failure("vacuum after an erasure", e);
    }
  }

  /** An error that names the store and what failed. */
  public java.io.UncheckedIOException failure(String what, SQLException e) {
    return new java.io.UncheckedIOException(
        new java.io.IOException(
            "builtin store at " + settings.safeUrl() + ": " + what + ": " + e.getMessage(), e));
  }

  @Override
  public void close() {
    pool.close();
  }

  static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }
}
