package dev.memstack.host.outbox;

import dev.memstack.host.shared.SharedStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;

/**
 * The PostgreSQL journal passes the journal contract, on a schema of its own of the database in
 * {@code MEMSTACK_PG_URL} (skipped without it, failed on CI); erasure is checked in the bytes of
 * every record left in the table. Each open is a host with a pool of its own.
 */
class PostgresJournalConformanceTest extends JournalConformance {

  private final SharedOutboxDatabase database = SharedOutboxDatabase.create();
  private final List<SharedStore> stores = new ArrayList<>();
  private final List<Journal> journals = new ArrayList<>();

  @Override
  protected Journal openJournal() {
    SharedStore store = database.store();
    stores.add(store);
    Journal journal = PostgresJournal.open(store, 4, Duration.ofSeconds(2));
    journals.add(journal);
    return journal;
  }

  @Override
  protected Optional<byte[]> storedBytes() {
    return Optional.of(database.bodies());
  }

  @AfterEach
  void dropTheSchema() {
    journals.forEach(Journal::close);
    stores.forEach(SharedStore::close);
    database.close();
  }
}
