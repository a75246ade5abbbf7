package dev.memstack.vector.pgvector;

import dev.memstack.testing.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The pgvector side of {@link TestPostgres}: the store's settings and configuration keys for a test
 * schema, and the Testcontainers variant (a {@code pgvector/pgvector} container).
 *
 * @param postgres the server, from the environment or a container
 */
record PgTestDatabase(TestPostgres postgres) {

  /** The database of {@code MEMSTACK_PG_*}: skips the calling tests without one, fails on CI. */
  static PgTestDatabase fromEnvironment() {
    return new PgTestDatabase(TestPostgres.fromEnvironment());
  }

  /** The container's database, with pgvector enabled in it. */
  static PgTestDatabase of(PostgreSQLContainer container) {
    PgTestDatabase database =
        new PgTestDatabase(
            new TestPostgres(
                container.getJdbcUrl(), container.getUsername(), container.getPassword()));
    database.execute("CREATE EXTENSION IF NOT EXISTS vector");
    return database;
  }

  /** A pgvector/pgvector:pg17 container (started by the Testcontainers extension). */
  static PostgreSQLContainer container() {
    return new PostgreSQLContainer(
        DockerImageName.parse("pgvector/pgvector:pg17").asCompatibleSubstituteFor("postgres"));
  }

  /** A schema name no other test uses. */
  static String newSchemaName() {
    return TestPostgres.uniqueName("t_");
  }

  String url() {
    return postgres.url();
  }

  String user() {
    return postgres.user();
  }

  String password() {
    return postgres.password();
  }

  /** The connection keys of the store's configuration, for {@code schema}. */
  Map<String, String> storeConfig(String schema) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put(PgVectorSettings.JDBC_URL, url());
    if (user() != null) {
      config.put(PgVectorSettings.USERNAME, user());
    }
    if (password() != null) {
      config.put(PgVectorSettings.PASSWORD, password());
    }
    config.put(PgVectorSettings.SCHEMA, schema);
    return config;
  }

  /** Store settings in {@code schema}, with defaults otherwise. */
  PgVectorSettings settings(String schema) {
    return PgVectorSettings.of(url(), user(), password()).withSchema(schema);
  }

  Connection connect() throws SQLException {
    return postgres.connect();
  }

  void execute(String sql) {
    postgres.execute(sql);
  }

  void dropSchema(String schema) {
    postgres.dropSchema(schema);
  }

  /** The same server's URL for another database. */
  String urlFor(String database) {
    return postgres.urlOfDatabase(database);
  }

  /** A new empty database on the same server (no pgvector extension in it). */
  String createScratchDatabase() {
    return postgres.createDatabase("memstack_scratch_");
  }

  void dropDatabase(String name) {
    postgres.dropDatabase(name);
  }
}
