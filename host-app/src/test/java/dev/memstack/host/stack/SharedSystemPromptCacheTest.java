package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.coordination.SharedPromptInvalidation;
import dev.memstack.host.shared.SharedStore;
import dev.memstack.host.testing.Eventually;
import dev.memstack.host.testing.SharedTestDatabase;
import dev.memstack.spi.AgentId;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Two hosts' {@link SystemPromptCache}s on one database ({@code MEMSTACK_PG_URL}): a provider's
 * {@code systemPromptChanged} on host A empties host B's cached prompt of that agent only.
 */
class SharedSystemPromptCacheTest {

  private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

  @Test
  void aChangeReportedOnHostAEmptiesThatAgentsPromptOnHostB() {
    SharedTestDatabase database = SharedTestDatabase.create();
    SystemPromptCache cacheA = new SystemPromptCache();
    SystemPromptCache cacheB = new SystemPromptCache();
    AgentId support = AgentId.of("support");
    AgentId sales = AgentId.of("sales");
    try (SharedStore storeA = database.openHost();
        SharedStore storeB = database.openHost();
        SharedPromptInvalidation hostA = open(storeA, "a", cacheA);
        SharedPromptInvalidation hostB = open(storeB, "b", cacheB)) {
      Eventually.within(
          Duration.ofSeconds(10),
          () -> assertThat(hostA.listening() && hostB.listening()).isTrue());
      for (SystemPromptCache cache : new SystemPromptCache[] {cacheA, cacheB}) {
        cache.put(support, "m", "support prompt", null, cache.stamp());
        cache.put(sales, "m", "sales prompt", null, cache.stamp());
      }

      hostA.changed(support);

      assertThat(cacheA.get(support, "m", NOW)).isEmpty();
      Eventually.within(
          Duration.ofSeconds(5), () -> assertThat(cacheB.get(support, "m", NOW)).isEmpty());
      assertThat(cacheB.get(sales, "m", NOW)).contains("sales prompt");
      assertThat(cacheA.get(sales, "m", NOW)).contains("sales prompt");
    } finally {
      database.drop();
    }
  }

  private static SharedPromptInvalidation open(
      SharedStore store, String hostId, SystemPromptCache cache) {
    return new SharedPromptInvalidation(store, hostId, cache::invalidate, Duration.ofSeconds(3));
  }
}
