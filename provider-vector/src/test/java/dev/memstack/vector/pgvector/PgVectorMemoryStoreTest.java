package dev.memstack.vector.pgvector;

import dev.memstack.testing.TestPostgresCondition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pgvector store tests on the database named by {@code MEMSTACK_PG_URL} (set by {@code eval
 * "$(scripts/pgvector-setup.sh)"}); skipped without it, failed without it on CI.
 */
@ExtendWith(TestPostgresCondition.class)
@DisplayName("pgvector store on the configured PostgreSQL")
class PgVectorMemoryStoreTest extends PgVectorMemoryStoreTests {

  private static PgTestDatabase database;

  @BeforeAll
  static void findDatabase() {
    database = PgTestDatabase.fromEnvironment();
  }

  @Override
  protected PgTestDatabase database() {
    return database;
  }
}
