package dev.memstack.host.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.host.stack.SystemPromptCache;
import dev.memstack.host.testing.Eventually;
import dev.memstack.host.testing.SharedTestDatabase;
import dev.memstack.spi.AgentId;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two hosts' system-prompt caches on one database ({@code MEMSTACK_PG_URL}). */
class SharedPromptInvalidationTest {

  private static final AgentId AGENT = AgentId.of("support");

  private SharedTestDatabase database;
  private SharedStore storeA;
  private SharedStore storeB;
  private SharedPromptInvalidation hostA;
  private SharedPromptInvalidation hostB;
  private final List<String> seenByA = Collections.synchronizedList(new ArrayList<>());
  private final List<String> seenByB = Collections.synchronizedList(new ArrayList<>());
  private final SystemPromptCache cacheB = new SystemPromptCache();

  @BeforeEach
  void twoHosts() {
    database = SharedTestDatabase.create();
    storeA = database.openHost();
    storeB = database.openHost();
    hostA = open(storeA, "host-a", record(seenByA, agent -> {}));
    hostB = open(storeB, "host-b", record(seenByB, cacheB::invalidate));
    Eventually.within(
        Duration.ofSeconds(10), () -> assertThat(hostA.listening() && hostB.listening()).isTrue());
    assertThat(seenByB).as("emptied once it listens").contains("*");
    seenByA.clear();
    seenByB.clear();
  }

  @AfterEach
  void close() {
    for (AutoCloseable c : new AutoCloseable[] {hostA, hostB, storeA, storeB}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        // closing anyway
      }
    }
    if (database != null) {
      database.drop();
    }
  }

  private static SharedPromptInvalidation open(
      SharedStore store, String hostId, Consumer<AgentId> invalidate) {
    return new SharedPromptInvalidation(store, hostId, invalidate, Duration.ofSeconds(3));
  }

  private static Consumer<AgentId> record(List<String> seen, Consumer<AgentId> then) {
    return agent -> {
      seen.add(agent == null ? "*" : agent.value());
      then.accept(agent);
    };
  }

  @Test
  void aChangeOnOneHostEmptiesTheOtherHostsCacheOfThatAgent() {
    hostA.changed(AGENT);

    assertThat(seenByA).as("this host forgets at once").containsExactly("support");
    Eventually.within(Duration.ofSeconds(5), () -> assertThat(seenByB).containsExactly("support"));
    hostA.changed(null);
    Eventually.within(
        Duration.ofSeconds(5), () -> assertThat(seenByB).containsExactly("support", "*"));
    assertThat(seenByA).as("its own notifications are skipped").containsExactly("support", "*");
  }

  @Test
  void aLostListeningConnectionEmptiesTheWholeCacheAndListensAgain() throws Exception {
    long connects = hostB.connects();
    try (Connection connection = storeA.dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
              + " WHERE application_name = 'memstack prompt listener' AND pid <> pg_backend_pid()");
    }
    Eventually.within(
        Duration.ofSeconds(20),
        () -> {
          assertThat(hostB.connects()).isGreaterThan(connects);
          assertThat(hostB.listening()).isTrue();
        });
    // emptied when the connection was lost and once more when it listened again
    assertThat(seenByB.stream().filter("*"::equals).count()).isGreaterThanOrEqualTo(2);
    seenByB.clear();
    Eventually.within(Duration.ofSeconds(10), () -> assertThat(hostA.listening()).isTrue());

    hostA.changed(AGENT);
    Eventually.within(Duration.ofSeconds(5), () -> assertThat(seenByB).containsExactly("support"));
    assertThat(Objects.requireNonNull(cacheB).size()).isZero();
  }
}
