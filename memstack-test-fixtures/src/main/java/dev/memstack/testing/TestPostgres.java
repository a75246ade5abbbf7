package dev.memstack.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server of the tests, named by {@code MEMSTACK_PG_URL}, {@code MEMSTACK_PG_USER}
 * and {@code MEMSTACK_PG_PASSWORD} (what {@code eval "$(scripts/pgvector-setup.sh)"} exports).
 * Without the URL a test that asks for it is skipped, except on CI ({@code CI=true}), where it
 * fails: CI always provides the database. Each test takes a schema (or a database) of its own and
 * drops it. {@link TestPostgresCondition} skips (or fails) a whole test class the same way.
 *
 * @param url a {@code jdbc:postgresql:} URL
 * @param user the user, or {@code null}
 * @param password the password, or {@code null}
 */
public record TestPostgres(String url, String user, String password) {

  public static final String URL_VARIABLE = "MEMSTACK_PG_URL";
  public static final String USER_VARIABLE = "MEMSTACK_PG_USER";
  public static final String PASSWORD_VARIABLE = "MEMSTACK_PG_PASSWORD";

  static final String HOW_TO_ENABLE =
      "run eval \"$(scripts/pgvector-setup.sh)\" in the project directory; it installs pgvector"
          + " into the local PostgreSQL and exports "
          + URL_VARIABLE
          + ", "
          + USER_VARIABLE
          + " and "
          + PASSWORD_VARIABLE;

  private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  /** The database of the environment; skips the calling test without one, fails it on CI. */
  public static TestPostgres fromEnvironment() {
    Optional<TestPostgres> postgres = environment();
    if (postgres.isEmpty()) {
      if (onCi()) {
        fail(URL_VARIABLE + " is not set on CI (CI=true): " + HOW_TO_ENABLE);
      }
      Assumptions.abort(URL_VARIABLE + " is not set; skipping a PostgreSQL test: " + HOW_TO_ENABLE);
    }
    return postgres.get();
  }

  /**
   * The database of the environment, or empty without {@code MEMSTACK_PG_URL}: for programs such as
   * benchmarks, which neither skip nor fail a test.
   */
  public static Optional<TestPostgres> environment() {
    String url = blankToNull(System.getenv(URL_VARIABLE));
    if (url == null) {
      return Optional.empty();
    }
    return Optional.of(
        new TestPostgres(
            url,
            blankToNull(System.getenv(USER_VARIABLE)),
            blankToNull(System.getenv(PASSWORD_VARIABLE))));
  }

  /** Whether the build runs on CI ({@code CI=true}), where a missing database is a failure. */
  static boolean onCi() {
    return "true".equalsIgnoreCase(System.getenv("CI"));
  }

  /** Whether the environment names a database (for conditions that only look). */
  public static boolean configured() {
    return blankToNull(System.getenv(URL_VARIABLE)) != null;
  }

  /** A schema or database name no other test uses: {@code prefix} and 12 random hex digits. */
  public static String uniqueName(String prefix) {
    return prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  /** Creates a new schema named from {@code prefix} and returns its name. */
  public String createSchema(String prefix) {
    return create("SCHEMA", prefix);
  }

  /** {@code DROP SCHEMA IF EXISTS ... CASCADE}. */
  public void dropSchema(String schema) {
    execute("DROP SCHEMA IF EXISTS " + plain(schema) + " CASCADE");
  }

  /** Creates a new empty database named from {@code prefix} and returns its name. */
  public String createDatabase(String prefix) {
    return create("DATABASE", prefix);
  }

  private String create(String kind, String prefix) {
    String name = plain(uniqueName(prefix));
    execute("CREATE " + kind + " " + name);
    return name;
  }

  /** Drops {@code database}, closing the connections still open to it. */
  public void dropDatabase(String database) {
    execute("DROP DATABASE IF EXISTS " + plain(database) + " WITH (FORCE)");
  }

  /** The same server and credentials, on another database. */
  public TestPostgres onDatabase(String database) {
    return new TestPostgres(urlOfDatabase(database), user, password);
  }

  /** The URL with {@code schema} (then {@code public}, where extensions live) as current schema. */
  public String urlWithSchema(String schema) {
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + plain(schema) + ",public";
  }

  /** Runs one statement; a failure is an {@link IllegalStateException} naming it. */
  public void execute(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /**
   * The single number {@code sql} answers, its {@code ?} bound to {@code parameters} as strings.
   */
  public long count(String sql, String... parameters) {
    try (Connection connection = connect();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setString(i + 1, parameters[i]);
      }
      try (ResultSet result = statement.executeQuery()) {
        result.next();
        return result.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** A new connection to {@link #url()}. */
  public Connection connect() throws SQLException {
    return connect(url);
  }

  /** A new connection to {@code jdbcUrl} with this user and password. */
  public Connection connect(String jdbcUrl) throws SQLException {
    Properties info = new Properties();
    if (user != null) {
      info.setProperty("user", user);
    }
    if (password != null) {
      info.setProperty("password", password);
    }
    Connection connection = new org.postgresql.Driver().connect(jdbcUrl, info);
    if (connection == null) {
      throw new SQLException("the PostgreSQL driver does not accept the URL " + jdbcUrl);
    }
    return connection;
  }

  /** The URL of another database on the same server. */
  public String urlOfDatabase(String database) {
    int slash = url.indexOf('/', "jdbc:postgresql://".length());
    if (slash < 0) {
      throw new IllegalStateException("no database in " + URL_VARIABLE + ": " + url);
    }
    int query = url.indexOf('?', slash);
    return url.substring(0, slash + 1) + plain(database) + (query < 0 ? "" : url.substring(query));
  }

  private static String plain(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("not a plain PostgreSQL name: " + name);
    }
    return name;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
