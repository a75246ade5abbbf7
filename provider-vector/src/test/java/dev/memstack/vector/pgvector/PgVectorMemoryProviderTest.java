package dev.memstack.vector.pgvector;

import dev.memstack.testing.TestPostgresCondition;
import dev.memstack.vector.VectorMemoryProviderContract;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The vector provider's behaviour with {@code store=pgvector}, on the configured PostgreSQL
 * (MEMSTACK_PG_URL).
 */
@ExtendWith(TestPostgresCondition.class)
@DisplayName("The vector provider on the pgvector store, configured PostgreSQL (MEMSTACK_PG_URL)")
class PgVectorMemoryProviderTest extends VectorMemoryProviderContract {

  private static final PgSchemas SCHEMAS = new PgSchemas();
  private static PgTestDatabase database;

  @BeforeAll
  static void findDatabase() {
    database = PgTestDatabase.fromEnvironment();
  }

  @AfterAll
  static void dropSchemas() {
    SCHEMAS.dropAll(database);
  }

  @Override
  protected Map<String, String> storeConfig() {
    Map<String, String> config = new HashMap<>(database.storeConfig(SCHEMAS.next()));
    config.put("store", PgVectorMemoryStoreFactory.NAME);
    return config;
  }
}
