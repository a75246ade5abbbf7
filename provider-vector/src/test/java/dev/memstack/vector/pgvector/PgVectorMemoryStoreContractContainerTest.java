package dev.memstack.vector.pgvector;

import dev.memstack.vector.store.MemoryVectorStoreContract;
import dev.memstack.vector.store.MemoryVectorStoreFactory;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The store contract on the pgvector store, one schema per test, on the pgvector/pgvector:pg17
 * container.
 */
@Testcontainers(disabledWithoutDocker = true)
@DisplayName("Store contract: pgvector on the pgvector/pgvector:pg17 container")
class PgVectorMemoryStoreContractContainerTest extends MemoryVectorStoreContract {

  @Container static final PostgreSQLContainer POSTGRES = PgTestDatabase.container();

  private static final PgSchemas SCHEMAS = new PgSchemas();
  private static PgTestDatabase database;

  @BeforeAll
  static void findDatabase() {
    database = PgTestDatabase.of(POSTGRES);
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
