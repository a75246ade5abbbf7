package dev.memstack.host.coordination;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.host.testing.SharedTestDatabase;
import dev.memstack.spi.Coordination;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The coordination of shared mode on PostgreSQL ({@code MEMSTACK_PG_URL}): two hosts, each with its
 * own pool and host id, over one database.
 */
class SharedCoordinationConformanceTest extends CoordinationConformance {

  private SharedTestDatabase database;
  private final SharedStore[] stores = new SharedStore[2];
  private final SharedCoordination[] hosts = new SharedCoordination[2];

  @BeforeEach
  void openTwoHosts() throws SQLException {
    database = SharedTestDatabase.create();
    for (int i = 0; i < 2; i++) {
      stores[i] = database.openHost();
      hosts[i] = new SharedCoordination(stores[i], "host-" + i);
    }
  }

  @AfterEach
  void closeHosts() {
    for (SharedStore store : stores) {
      if (store != null) {
        store.close();
      }
    }
    if (database != null) {
      database.drop();
    }
  }

  @Override
  protected Coordination coordination(int host, String instance) {
    return hosts[host].of(instance);
  }

  @Override
  protected boolean expectedShared() {
    return true;
  }
}
