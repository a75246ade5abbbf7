package dev.memstack.host.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.outbox.journal.Journal;
import dev.memstack.outbox.journal.JournalConformance;
import dev.memstack.outbox.postgres.PostgresJournal;
import dev.memstack.outbox.postgres.PostgresOutboxSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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

  @Test
  void twoHostsStartingAtOnceCreateTheSchemaOnce() {
    List<CompletableFuture<Journal>> starts = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      SharedStore store = trackedStore();
      starts.add(
          CompletableFuture.supplyAsync(
              () -> PostgresJournal.open(store, 4, Duration.ofSeconds(2))));
    }
    for (CompletableFuture<Journal> start : starts) {
      journals.add(start.join());
    }
    assertThat(database.count("SELECT count(*) FROM memstack_schema WHERE component = 'outbox'"))
        .isEqualTo(PostgresOutboxSchema.STEPS.size());
  }

  @Test
  void aHostWithAnotherShardCountDoesNotStartAndNamesTheKey() {
    journals.add(PostgresJournal.open(trackedStore(), 4, Duration.ofSeconds(2)));
    assertThatThrownBy(() -> PostgresJournal.open(trackedStore(), 8, Duration.ofSeconds(2)))
        .hasMessageContaining("memstack.outbox.shards is 8")
        .hasMessageContaining("created with 4 shards");
  }

  private SharedStore trackedStore() {
    SharedStore store = database.store();
    stores.add(store);
    return store;
  }
}
