package dev.memstack.vector.pgvector;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL database with pgvector for tests, and what tests do with it: a fresh schema per
 * test, a scratch database without the extension.
 *
 * @param url a {@code jdbc:postgresql:} URL
 * @param user the user, or {@code null}
 * @param password the password, or {@code null}
 */
record PgTestDatabase(String url, String user, String password) {

  static final String URL_VARIABLE = "MEMSTACK_PG_URL";
  static final String USER_VARIABLE = "MEMSTACK_PG_USER";
  static final String PASSWORD_VARIABLE = "MEMSTACK_PG_PASSWORD";

  static final String HOW_TO_ENABLE =
      "pgvector tests need a PostgreSQL database with the vector extension: run"
          + " eval \"$(scripts/pgvector-setup.sh)\" in the project directory (it exports "
          + URL_VARIABLE
          + ", "
          + USER_VARIABLE
          + " and "
          + PASSWORD_VARIABLE
          + "), or start a Docker engine for the Testcontainers variant";

  /**
   * The database named by {@code MEMSTACK_PG_*}. Without one the calling tests are skipped, except
   * on CI ({@code CI=true}), where they fail: CI always provides the database.
   */
  static PgTestDatabase fromEnvironment() {
    String url = blankToNull(System.getenv(URL_VARIABLE));
    if (url == null) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail(URL_VARIABLE + " is not set on CI (CI=true). " + HOW_TO_ENABLE);
      }
      Assumptions.abort(URL_VARIABLE + " is not set; skipping. " + HOW_TO_ENABLE);
    }
    return new PgTestDatabase(
        url,
        blankToNull(System.getenv(USER_VARIABLE)),
        blankToNull(System.getenv(PASSWORD_VARIABLE)));
  }

  /** The connection keys of the store's configuration, for {@code schema}. */
  java.util.Map<String, String> storeConfig(String schema) {
    java.util.Map<String, String> config = new java.util.LinkedHashMap<>();
    config.put(PgVectorSettings.JDBC_URL, url);
    if (user != null) {
      config.put(PgVectorSettings.USERNAME, user);
    }
    if (password != null) {
      config.put(PgVectorSettings.PASSWORD, password);
    }
    config.put(PgVectorSettings.SCHEMA, schema);
    return config;
  }

  /** The container's database, with pgvector enabled in it. */
  static PgTestDatabase of(org.testcontainers.postgresql.PostgreSQLContainer container) {
    PgTestDatabase database =
        new PgTestDatabase(
            container.getJdbcUrl(), container.getUsername(), container.getPassword());
    database.execute("CREATE EXTENSION IF NOT EXISTS vector");
    return database;
  }

  /** A pgvector/pgvector:pg17 container (started by the Testcontainers extension). */
  static org.testcontainers.postgresql.PostgreSQLContainer container() {
    return new org.testcontainers.postgresql.PostgreSQLContainer(
        org.testcontainers.utility.DockerImageName.parse("pgvector/pgvector:pg17")
            .asCompatibleSubstituteFor("postgres"));
  }

  /** Store settings in {@code schema}, with defaults otherwise. */
  PgVectorSettings settings(String schema) {
    return PgVectorSettings.of(url, user, password).withSchema(schema);
  }

  /** A schema name no other test uses. */
  static String newSchemaName() {
    return "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  }

  Connection connect() throws SQLException {
    return dataSource(url).getConnection();
  }

  PGSimpleDataSource dataSource(String jdbcUrl) {
    PGSimpleDataSource source = new PGSimpleDataSource();
    source.setUrl(jdbcUrl);
    if (user != null) {
      source.setUser(user);
    }
    if (password != null) {
      source.setPassword(password);
    }
    return source;
  }

  void execute(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  void dropSchema(String schema) {
    execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
  }

  /** The same server's URL for another database. */
  String urlFor(String database) {
    int slash = url.indexOf('/', "jdbc:postgresql://".length());
    if (!url.startsWith("jdbc:postgresql://") || slash < 0) {
      throw new IllegalArgumentException("cannot find the database name in " + url);
    }
    int query = url.indexOf('?', slash);
    return url.substring(0, slash + 1) + database + (query < 0 ? "" : url.substring(query));
  }

  /** A new empty database on the same server (no pgvector extension in it). */
  String createScratchDatabase() {
    String name = "memstack_scratch_" + UUID.randomUUID().toString().substring(0, 8);
    execute("CREATE DATABASE " + name.toLowerCase(Locale.ROOT));
    return name;
  }

  void dropDatabase(String name) {
    execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
