package dev.memstack.host.outbox;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.outbox.postgres.OutboxDatabase;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/** The shared database of {@code memstack.shared.*} as the PostgreSQL journal's database. */
public record SharedStoreDatabase(SharedStore store) implements OutboxDatabase {

  public SharedStoreDatabase {
    Objects.requireNonNull(store, "store");
  }

  @Override
  public DataSource dataSource() {
    return store.dataSource();
  }

  @Override
  public String describe() {
    return store.describe();
  }

  @Override
  public void migrate(String component, List<String> steps) throws SQLException {
    store.migrate(component, steps);
  }
}
