package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.coordination.ProviderCoordination;
import dev.memstack.host.coordination.SharedCoordination;
import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.stack.SystemPromptCache;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.SharedTestDatabase;
import dev.memstack.host.testing.TestHost;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Two real hosts in shared mode on one database ({@code MEMSTACK_PG_URL}), each with its own data
 * dir: both hand their providers the coordination on the shared database, the vector provider (its
 * {@code store} unset) keeps its memories there, so what one host was told the other recalls, and a
 * system-prompt change reported on one host empties the other's cached prompts.
 */
class SharedModeTwoHostsTest {

  private static final String AGENT = "shared-agent";
  private static final String OWNER = "user:shared";

  private static SharedTestDatabase database;
  private static TestHost hostA;
  private static TestHost hostB;

  @BeforeAll
  static void startTwoHosts() {
    database = SharedTestDatabase.create();
    hostA = shared("shared-a").start();
    hostB = shared("shared-b").start();
  }

  private static TestHost shared(String name) {
    SharedProperties properties = database.properties();
    TestHost host =
        TestHost.withTestEmbedder(name)
            .with("memstack.shared.jdbc-url", properties.jdbcUrl())
            .with("memstack.providers.vector.config.schema", database.schema());
    if (properties.username() != null) {
      host.with("memstack.shared.username", properties.username());
    }
    if (properties.password() != null) {
      host.with("memstack.shared.password", properties.password());
    }
    return host;
  }

  @AfterAll
  static void stop() {
    for (TestHost host : new TestHost[] {hostA, hostB}) {
      if (host != null) {
        host.close();
      }
    }
    if (database != null) {
      database.drop();
    }
  }

  @Test
  void bothHostsCoordinateOnTheSharedDatabase() {
    for (TestHost host : new TestHost[] {hostA, hostB}) {
      assertThat(host.bean(ProviderCoordination.class)).isInstanceOf(SharedCoordination.class);
      assertThat(host.bean(ProviderCoordination.class).sharedDatabase()).isPresent();
    }
    assertThat(((SharedCoordination) hostA.bean(ProviderCoordination.class)).hostId())
        .isNotEqualTo(((SharedCoordination) hostB.bean(ProviderCoordination.class)).hostId());
  }

  @Test
  void aTurnGivenToOneHostIsRecalledByTheOther() {
    HostClient a = hostA.client();
    HostClient b = hostB.client();
    a.turn(AGENT, OWNER, "t-shared-1", "My locker code is saffron heron 4417", "Noted.")
        .expect(202);

    await("host b recalls what host a was told")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () ->
                assertThat(
                        b.context(AGENT, OWNER, "saffron heron locker")
                            .expect(200)
                            .recallOf("vector"))
                    .anyMatch(item -> item.path("text").asString().contains("saffron heron")));
  }

  /**
   * mem0 is configured but disabled by default: an erasure in shared mode answers {@code queued}
   * for it at once instead of waiting {@code memstack.outbox.erase-wait} (10 s) for an instance
   * that does not run, and the outbox route shows it as optional.
   */
  @Test
  void anErasureDoesNotWaitForADisabledProvider() {
    HostClient a = hostA.client();
    HostClient b = hostB.client();
    for (int i = 0; i < 4; i++) {
      String owner = "user:erased-" + i;
      a.turn(AGENT, owner, "t-erased-" + i, "My bike is a teal tandem " + i, "Noted.").expect(202);
    }
    for (int i = 0; i < 4; i++) {
      HostClient via = i % 2 == 0 ? a : b;
      HostClient.Answer erased = via.delete("/api/v1/owners/user:erased-" + i + "/memory");

      erased.expect(200);
      assertThat(erased.took()).as("erasure %s", erased).isLessThan(Duration.ofSeconds(5));
      JsonNode mem0 = providerOf(erased.json(), "mem0");
      assertThat(mem0.path("outcome").asString()).isEqualTo("queued");
      assertThat(mem0.path("detail").asString()).contains("not running");
    }
    JsonNode backlog = a.outboxOf("mem0");
    assertThat(backlog.path("optional").asBoolean()).isTrue();
    assertThat(backlog.path("maxBacklog").asInt()).isEqualTo(100_000);
    assertThat(backlog.path("droppedTurns").asLong()).isZero();
    assertThat(a.outboxOf("builtin").path("optional").asBoolean()).isFalse();
    assertThat(a.outboxOf("builtin").has("maxBacklog")).isFalse();
  }

  private static JsonNode providerOf(JsonNode erasure, String id) {
    for (JsonNode provider : erasure.path("providers")) {
      if (id.equals(provider.path("id").asString())) {
        return provider;
      }
    }
    throw new AssertionError("no outcome of " + id + " in " + erasure);
  }

  @Test
  void aPromptChangeOnOneHostEmptiesTheOtherHostsCache() {
    HostClient a = hostA.client();
    HostClient b = hostB.client();
    SystemPromptCache cacheB = hostB.bean(SystemPromptCache.class);
    // the first call of a new agent seeds its files, which reports a change while it builds
    await("host b caches the agent's prompt")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              b.context(AGENT, OWNER, "anything").expect(200);
              assertThat(cacheB.size()).isPositive();
            });

    a.putFile("/api/v1/agents/" + AGENT + "/workspace/files/AGENTS.md", "# Agents\n\nBe brief.")
        .expect(200);

    await("host b's cached prompt is emptied")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(cacheB.size()).isZero());
  }
}
