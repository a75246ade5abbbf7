package dev.memstack.vector.pgvector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderHealth;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.SharedDatabase;
import dev.memstack.tck.TestProviderContext;
import dev.memstack.tck.Turns;
import dev.memstack.testing.TestPostgresCondition;
import dev.memstack.vector.VectorMemoryProviderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Shared mode on the configured PostgreSQL (MEMSTACK_PG_URL): with {@code store} unset, two "hosts"
 * (two provider instances, two data dirs) both use pgvector on the shared database, and what one
 * stores the other recalls.
 */
@ExtendWith(TestPostgresCondition.class)
@DisplayName("The vector provider in shared mode (MEMSTACK_PG_URL)")
class PgVectorSharedModeTest {

  private static final PgSchemas SCHEMAS = new PgSchemas();
  private static PgTestDatabase database;

  @TempDir Path dir;

  @BeforeAll
  static void findDatabase() {
    database = PgTestDatabase.fromEnvironment();
  }

  @AfterAll
  static void dropSchemas() {
    SCHEMAS.dropAll(database);
  }

  private MemoryProvider host(String name, String schema) {
    TestProviderContext context =
        TestProviderContext.builder()
            .instanceId("vector")
            .config(Map.of("schema", schema))
            .dataDir(dir.resolve(name))
            .sharedDatabase(
                new SharedDatabase(database.url(), database.user(), database.password()))
            .build();
    return new VectorMemoryProviderFactory().create(context);
  }

  @Test
  void withoutAStoreKeyBothHostsUsePgvectorOnTheSharedDatabase() throws Exception {
    String schema = SCHEMAS.next();
    AgentId agent = AgentId.of("support");
    OwnerKey alice = OwnerKey.of("user:alice");
    try (MemoryProvider a = host("a", schema);
        MemoryProvider b = host("b", schema)) {
      ProviderHealth health = a.health();
      assertThat(health.detail()).contains("store=pgvector");
      a.syncTurn(
          Turns.turn(
              agent,
              alice,
              "My locker code is the marmalade zeppelin quartet.",
              "Noted: the marmalade zeppelin quartet."));

      List<RecallItem> items =
          b.prefetch(
                  new RecallRequest(
                      agent,
                      alice,
                      Turns.CONVERSATION,
                      "marmalade zeppelin quartet",
                      5,
                      Instant.now().plusSeconds(10)))
              .items();
      assertThat(items).anyMatch(item -> item.text().contains("marmalade zeppelin quartet"));
      assertThat(Files.exists(dir.resolve("a").resolve("lucene")))
          .as("no embedded store in the data dir")
          .isFalse();
    }
  }
}
