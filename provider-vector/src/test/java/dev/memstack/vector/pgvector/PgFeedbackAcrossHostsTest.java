package dev.memstack.vector.pgvector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.tck.HashingEmbedder;
import dev.memstack.testing.TestPostgresCondition;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.StoreEmbedder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Feedback counts on pgvector with two "hosts" (two stores, each with its own pool, on one table)
 * raising the same records' counts from several threads each (MEMSTACK_PG_URL): every increment is
 * applied in SQL ({@code uses = uses + 1}), so none is lost. A read-then-write of the counts would
 * lose most of them under this contention.
 */
@ExtendWith(TestPostgresCondition.class)
@DisplayName("Feedback counts across hosts on pgvector (MEMSTACK_PG_URL)")
class PgFeedbackAcrossHostsTest {

  private static final PgSchemas SCHEMAS = new PgSchemas();
  private static PgTestDatabase database;
  private static final OwnerKey ALICE = OwnerKey.of("user:alice");

  @BeforeAll
  static void findDatabase() {
    database = PgTestDatabase.fromEnvironment();
  }

  @AfterAll
  static void dropSchemas() {
    SCHEMAS.dropAll(database);
  }

  @Test
  void concurrentIncrementsFromTwoHostsAllCount() throws Exception {
    PgVectorSettings settings = database.settings(SCHEMAS.next());
    StoreEmbedder embedder = new StoreEmbedder(new HashingEmbedder(), 16);
    try (PgVectorMemoryStore hostA = PgVectorMemoryStore.open(settings, embedder, false, "r");
        PgVectorMemoryStore hostB = PgVectorMemoryStore.open(settings, embedder, false, "r")) {
      hostA.add(
          List.of(record("r1", "alice prefers green tea"), record("r2", "alice lives in Lisbon")));
      PgVectorMemoryStore[] hosts = {hostA, hostB};
      int threadsPerHost = 4;
      int rounds = 40;
      ExecutorService pool = Executors.newFixedThreadPool(threadsPerHost * 2);
      CountDownLatch start = new CountDownLatch(1);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threadsPerHost * 2; t++) {
          PgVectorMemoryStore host = hosts[t % 2];
          List<String> ids = t % 4 < 2 ? List.of("r1", "r2") : List.of("r2", "r1");
          done.add(
              pool.submit(
                  () -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                      host.addFeedback(ALICE, ids);
                    }
                    return null;
                  }));
        }
        start.countDown();
        for (Future<?> f : done) {
          f.get(120, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      long expected = (long) threadsPerHost * 2 * rounds;
      assertThat(hostB.feedback(ALICE, List.of("r1", "r2")))
          .containsExactlyInAnyOrderEntriesOf(Map.of("r1", expected, "r2", expected));
      assertThat(hostA.feedback(ALICE, List.of("r1"))).containsEntry("r1", expected);
    }
  }

  private static org.springframework.ai.document.Document record(String id, String text) {
    return new MemoryRecord(
            id,
            text,
            AgentId.of("helper"),
            ALICE,
            Scope.PERSONAL,
            MemoryStatus.ACTIVE,
            "FACT",
            "conv-1",
            "turn-" + id,
            Instant.parse("2026-03-01T10:00:00Z"),
            Map.of())
        .toDocument();
  }
}
