package dev.memstack.host.proof;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.testing.SharedTestDatabase;
import dev.memstack.host.testing.TestHost;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The adversarial reproductions ({@link AdversarialReplay}) against a host in shared mode on
 * PostgreSQL ({@code MEMSTACK_PG_URL}): its journal, conversation log and the vector provider's
 * memories in the database, where a NUL byte once stalled a lane and turned {@code remember} into a
 * 503 with the database's error text.
 */
class SharedAdversarialReplayTest extends AdversarialReplay {

  private static SharedTestDatabase database;
  private static TestHost host;

  @BeforeAll
  static void startSharedHost() {
    database = SharedTestDatabase.create();
    SharedProperties properties = database.properties();
    host =
        TestHost.withTestEmbedder("adversarial-shared")
            .withToken(ALICE, "member", "api:alice")
            .withToken(BOB, "member", "api:bob")
            .with("memstack.shared.jdbc-url", properties.jdbcUrl())
            .with("memstack.providers.vector.config.schema", database.schema());
    if (properties.username() != null) {
      host.with("memstack.shared.username", properties.username());
    }
    if (properties.password() != null) {
      host.with("memstack.shared.password", properties.password());
    }
    host.start();
  }

  @AfterAll
  static void stop() {
    if (host != null) {
      host.close();
    }
    if (database != null) {
      database.drop();
    }
  }

  @Override
  TestHost host() {
    return host;
  }
}
