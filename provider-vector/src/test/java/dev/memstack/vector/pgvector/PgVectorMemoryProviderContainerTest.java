package dev.memstack.vector.pgvector;

import dev.memstack.vector.VectorMemoryProviderContract;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The vector provider's behaviour with {@code store=pgvector}, on the pgvector/pgvector:pg17
 * container.
 */
@Testcontainers(disabledWithoutDocker = true)
@DisplayName("The vector provider on the pgvector store, pgvector/pgvector:pg17 container")
class PgVectorMemoryProviderContainerTest extends VectorMemoryProviderContract {

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
  protected Map<String, String> storeConfig() {
    Map<String, String> config = new HashMap<>(database.storeConfig(SCHEMAS.next()));
    config.put("store", PgVectorMemoryStoreFactory.NAME);
    return config;
  }
}
