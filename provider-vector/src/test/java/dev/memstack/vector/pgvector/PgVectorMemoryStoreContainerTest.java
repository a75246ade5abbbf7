package dev.memstack.vector.pgvector;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.postgresql.PostgreSQLContainer;

/** The pgvector store tests on a throw-away {@code pgvector/pgvector:pg17} container. */
@Testcontainers(disabledWithoutDocker = true)
@DisplayName("pgvector store on a pgvector/pgvector:pg17 container")
class PgVectorMemoryStoreContainerTest extends PgVectorMemoryStoreTests {

  @Container static final PostgreSQLContainer POSTGRES = PgTestDatabase.container();

  private static PgTestDatabase database;

  @BeforeAll
  static void enableExtension() {
    database = PgTestDatabase.of(POSTGRES);
  }

  @Override
  protected PgTestDatabase database() {
    return database;
  }
}
