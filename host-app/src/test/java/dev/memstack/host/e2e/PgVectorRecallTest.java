package dev.memstack.host.e2e;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * Issue 4 on {@code memstack.providers.vector.config.store=pgvector} against the PostgreSQL named
 * by {@code MEMSTACK_PG_URL} (+ {@code _USER}, {@code _PASSWORD}), in a fresh schema that is
 * dropped afterwards. Without a database it is skipped with a message, or fails on CI ({@code
 * CI=true}).
 */
class PgVectorRecallTest extends VectorRecallScenario {

  private static PgDatabase database;
  private static String schema;

  // per test, not per class, so that a missing database shows as a skipped test with its reason
  @BeforeEach
  void database() {
    if (database == null) {
      database = PgDatabase.fromEnvironment();
      schema = "e2e_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }
  }

  @AfterAll
  static void dropSchema() {
    if (database != null) {
      database.dropSchema(schema);
    }
  }

  @Override
  protected Map<String, String> storeConfig() {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("store", "pgvector");
    config.put("jdbc-url", database.url());
    if (database.user() != null) {
      config.put("username", database.user());
    }
    if (database.password() != null) {
      config.put("password", database.password());
    }
    config.put("schema", schema);
    return config;
  }

  @Override
  protected long storedRecords(String owner) {
    return database.count(
        "SELECT count(*) FROM " + schema + ".vector_memory WHERE owner = ?", owner);
  }
}
