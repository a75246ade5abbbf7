package dev.memstack.builtin.store.postgres;

import dev.memstack.builtin.store.PgSettings;
import dev.memstack.spi.SharedDatabase;
import dev.memstack.testing.TestPostgres;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** What the builtin provider's PostgreSQL tests add to {@link TestPostgres}. */
public final class BuiltinPostgres {

  private BuiltinPostgres() {}

  /** A new schema of the database of the environment (skips without one, fails on CI). */
  public static String schema(TestPostgres db) {
    return db.createSchema("t_builtin_");
  }

  /** Settings in {@code schema} with the table prefix {@code builtin_}, no prompt watcher. */
  public static PgSettings settings(TestPostgres db, String schema) {
    return new PgSettings(db.url(), db.user(), db.password(), schema, "builtin_", 4, Duration.ZERO);
  }

  /** The database as the host's shared database. */
  public static SharedDatabase shared(TestPostgres db) {
    return new SharedDatabase(db.url(), db.user(), db.password());
  }

  /** The provider config keys of {@code store=postgres} in {@code schema}. */
  public static Map<String, String> config(TestPostgres db, String schema) {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("store", "postgres");
    config.put("jdbc-url", db.url());
    if (db.user() != null) {
      config.put("username", db.user());
    }
    if (db.password() != null) {
      config.put("password", db.password());
    }
    config.put("schema", schema);
    return config;
  }
}
