package dev.memstack.vector.pgvector;

import dev.memstack.testing.TestPostgresCondition;
import dev.memstack.vector.store.MemoryVectorStoreContract;
import dev.memstack.vector.store.MemoryVectorStoreFactory;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The store contract on the pgvector store, one schema per test, on the configured PostgreSQL
 * (MEMSTACK_PG_URL).
 */
@ExtendWith(TestPostgresCondition.class)
@DisplayName("Store contract: pgvector on the configured PostgreSQL (MEMSTACK_PG_URL)")
class PgVectorMemoryStoreContractTest extends MemoryVectorStoreContract {

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
  protected MemoryVectorStoreFactory factory() {
    return new PgVectorMemoryStoreFactory();
  }

  @Override
  protected Map<String, String> storeConfig() {
    return database.storeConfig(SCHEMAS.next());
  }
}
