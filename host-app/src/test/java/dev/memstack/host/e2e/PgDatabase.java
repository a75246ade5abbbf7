package dev.memstack.host.e2e;

import dev.memstack.host.plugin.PluginZips;
import dev.memstack.testing.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The PostgreSQL database of the pgvector acceptance test, from {@code MEMSTACK_PG_URL}, {@code
 * MEMSTACK_PG_USER} and {@code MEMSTACK_PG_PASSWORD}. The JDBC driver is the one inside the vector
 * plugin zip, loaded in a class loader of its own: the host's test class path stays without one, so
 * the plugin cannot lean on a driver the distribution would not have.
 */
public record PgDatabase(String url, String user, String password) {

  private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,47}");

  /** The configured database ({@link TestPostgres}); skips the test without one, fails it on CI. */
  public static PgDatabase fromEnvironment() {
    TestPostgres postgres = TestPostgres.fromEnvironment();
    return new PgDatabase(postgres.url(), postgres.user(), postgres.password());
  }

  /** {@code DROP SCHEMA ... CASCADE}. */
  public void dropSchema(String schema) {
    if (!SCHEMA.matcher(schema).matches()) {
      throw new IllegalArgumentException("not a plain schema name: " + schema);
    }
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("could not drop schema " + schema, e);
    }
  }

  /** The single number {@code sql} (with one string parameter) answers. */
  public long count(String sql, String parameter) {
    try (Connection connection = connect();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, parameter);
      try (ResultSet result = statement.executeQuery()) {
        result.next();
        return result.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private Connection connect() throws SQLException {
    Properties info = new Properties();
    if (user != null) {
      info.setProperty("user", user);
    }
    if (password != null) {
      info.setProperty("password", password);
    }
    Connection connection = Holder.DRIVER.connect(url, info);
    if (connection == null) {
      throw new SQLException("the PostgreSQL driver does not accept the URL in MEMSTACK_PG_URL");
    }
    return connection;
  }

  /** The driver jar from the vector plugin zip, loaded once. */
  private static final class Holder {
    static final Driver DRIVER = load();

    private static Driver load() {
      try (ZipFile zip = new ZipFile(PluginZips.zip("vector").toFile())) {
        ZipEntry jar =
            zip.stream()
                .filter(e -> e.getName().matches("lib/postgresql-[0-9.]+\\.jar"))
                .findFirst()
                .orElseThrow(
                    () -> new IllegalStateException("no lib/postgresql-*.jar in the vector zip"));
        Path copy = Files.createTempFile("memstack-e2e-pgjdbc", ".jar");
        copy.toFile().deleteOnExit();
        try (InputStream in = zip.getInputStream(jar)) {
          Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        }
        URLClassLoader loader =
            new URLClassLoader(
                new URL[] {copy.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
        return (Driver)
            Class.forName("org.postgresql.Driver", true, loader)
                .getDeclaredConstructor()
                .newInstance();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot load the PostgreSQL driver from the vector zip", e);
      }
    }
  }
}
