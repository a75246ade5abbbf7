package dev.memstack.vector.pgvector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.ToolException;
import dev.memstack.testing.TestPostgresCondition;
import dev.memstack.vector.MemoryTypesContract;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Memory types, stats and named memories with {@code store=pgvector}, on the configured PostgreSQL
 * (MEMSTACK_PG_URL): the types live in {@code <table>_types}, which every host of the table shares.
 */
@ExtendWith(TestPostgresCondition.class)
@DisplayName("Memory types, stats and named memories on the pgvector store (MEMSTACK_PG_URL)")
class PgVectorMemoryTypesTest extends MemoryTypesContract {

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

  @Test
  @DisplayName("two hosts on one table see each other's types, and one key is created once")
  void hostsShareTypesAndCreateAKeyOnce() throws Exception {
    MemoryProvider first = provider();
    MemoryProvider second = provider();
    tool(first, USER_1, "memory_create_type", "{\"key\":\"RECIPE\",\"name\":\"Recipe\"}");
    assertThat(keys(tool(second, USER_2, "memory_list_types", "{}"))).endsWith("RECIPE");

    CountDownLatch start = new CountDownLatch(1);
    List<CompletableFuture<Boolean>> creates = new ArrayList<>();
    for (MemoryProvider host : List.of(first, second, first, second)) {
      creates.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  start.await();
                  tool(host, USER_1, "memory_create_type", "{\"key\":\"TRIP\",\"name\":\"Trip\"}");
                  return true;
                } catch (ToolException e) {
                  assertThat(e.kind()).isEqualTo(ToolException.Kind.CONFLICT);
                  return false;
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              }));
    }
    start.countDown();

    assertThat(creates.stream().map(CompletableFuture::join).filter(created -> created)).hasSize(1);
    tool(second, USER_1, "memory_delete_type", "{\"key\":\"RECIPE\"}");
    assertThat(keys(tool(first, USER_1, "memory_list_types", "{}")))
        .endsWith("TRIP")
        .doesNotContain("RECIPE");
  }
}
