package dev.memstack.host.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.shared.SharedStore;
import dev.memstack.host.testing.SharedTestDatabase;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.ProviderUnavailableException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SharedCoordinationTest {

  @Test
  void anUnreachableDatabaseGivesProviderUnavailableWithoutTheCredentials() throws Exception {
    SharedProperties nowhere =
        new SharedProperties(
            "jdbc:postgresql://127.0.0.1:1/memstack?password=secret-pw",
            "someone",
            "secret-pw",
            2,
            Duration.ofMillis(300));
    try (SharedStore store = new SharedStore(nowhere)) {
      Coordination c = new SharedCoordination(store, "h", false).of("vector");
      assertThat(c.shared()).isTrue();
      assertThatThrownBy(() -> c.claimRun("decay", "1"))
          .isInstanceOf(ProviderUnavailableException.class)
          .hasMessageContaining("127.0.0.1:1/memstack")
          .hasMessageContaining("unreachable")
          .message()
          .doesNotContain("secret-pw");
      assertThatThrownBy(() -> c.tryLock("l", Duration.ofSeconds(1)))
          .isInstanceOf(ProviderUnavailableException.class);
      assertThatThrownBy(() -> c.tryStartCooldown("k", Duration.ofSeconds(1)))
          .isInstanceOf(ProviderUnavailableException.class);
      assertThatThrownBy(() -> c.addAndGet("n", 1))
          .isInstanceOf(ProviderUnavailableException.class);
    }
  }

  @Test
  void tablesAreCreatedOnceAndLocksNameTheirHostAndInstance() throws Exception {
    SharedTestDatabase database = SharedTestDatabase.create();
    try (SharedStore a = database.openHost();
        SharedStore b = database.openHost()) {
      SharedCoordination first = new SharedCoordination(a, "host-a");
      new SharedCoordination(b, "host-b");
      try (Coordination.Lease lease =
          first.of("builtin").tryLock("dreaming:agent", Duration.ofMinutes(1)).orElseThrow()) {
        try (Connection connection = a.dataSource().getConnection();
            Statement statement = connection.createStatement();
            ResultSet rows =
                statement.executeQuery(
                    "SELECT holder, (SELECT count(*) FROM memstack_schema"
                        + " WHERE component = 'coordination') FROM memstack_coordination_locks")) {
          assertThat(rows.next()).isTrue();
          assertThat(rows.getString(1)).startsWith("host-a/builtin#");
          assertThat(rows.getInt(2)).isEqualTo(SharedCoordination.SCHEMA.size());
        }
      }
      assertThat(first.sharedDatabase()).contains(a.database());
    } finally {
      database.drop();
    }
  }
}
