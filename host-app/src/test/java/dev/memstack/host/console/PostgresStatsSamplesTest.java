package dev.memstack.host.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.host.testing.SharedTestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The samples in the shared database ({@code MEMSTACK_PG_URL}; skipped without it, failed on CI):
 * the conformance tests, and two hosts that see each other's rows.
 */
class PostgresStatsSamplesTest extends StatsSamplesConformance {

  private SharedTestDatabase database;
  private final List<SharedStore> hosts = new ArrayList<>();

  @BeforeEach
  void database() {
    database = SharedTestDatabase.create();
  }

  @AfterEach
  void drop() {
    hosts.forEach(SharedStore::close);
    if (database != null) {
      database.drop();
    }
  }

  @Override
  StatsSamples store() {
    SharedStore host = database.openHost();
    hosts.add(host);
    return new PostgresStatsSamples(host);
  }

  @Test
  @DisplayName("two hosts keep their rows in one table and each reads both")
  void twoHostsShareTheirRows() {
    StatsSamples first = store();
    StatsSamples second = store();
    first.add(StatsSample.ofAgent("h1", "a1", T0, 5L, 1));
    second.add(StatsSample.ofAgent("h2", "a1", T0, 5L, 2));
    second.add(StatsSample.ofHost("h2", T0, 4, 0, 9));

    assertThat(first.since("a1", T0))
        .containsExactly(
            StatsSample.ofAgent("h1", "a1", T0, 5L, 1),
            StatsSample.ofHost("h2", T0, 4, 0, 9),
            StatsSample.ofAgent("h2", "a1", T0, 5L, 2));
    assertThat(second.deleteBefore(T0.plusSeconds(1))).isEqualTo(3);
    assertThat(first.since("a1", T0)).isEmpty();
  }
}
