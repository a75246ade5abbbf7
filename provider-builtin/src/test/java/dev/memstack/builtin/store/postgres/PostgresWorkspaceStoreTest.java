package dev.memstack.builtin.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.builtin.memory.WorkspaceRules;
import dev.memstack.builtin.store.ChangeListener;
import dev.memstack.builtin.store.FileMeta;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.store.WorkspaceStoreConformance;
import dev.memstack.testing.TestPostgres;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL workspace store: the workspace contract, and what a database shared by several
 * hosts adds (schema versions, change versions, writers on two stores). Every store opened here has
 * its own pool, as a host of its own would.
 */
@DisplayName("PostgresWorkspaceStore")
class PostgresWorkspaceStoreTest extends WorkspaceStoreConformance {

  TestPostgres db;
  String schema;

  @BeforeEach
  void database() {
    db = TestPostgres.fromEnvironment();
    schema = BuiltinPostgres.schema(db);
  }

  @AfterEach
  void dropSchema() {
    if (db != null) {
      db.dropSchema(schema);
    }
  }

  @Override
  protected WorkspaceStore open(Clock clock, ChangeListener listener) {
    PgWorkspaceDatabase database = PgWorkspaceDatabase.open(BuiltinPostgres.settings(db, schema));
    return new PostgresWorkspaceStore(
        database,
        new PostgresKeywordIndex(database, 80),
        clock,
        WorkspaceRules::isCoreForSearch,
        listener);
  }

  @Test
  @DisplayName("the schema is created once; a second open finds it at its version")
  void schemaIsVersioned() {
    store();
    store();
    assertThat(
            db.count(
                "SELECT count(*) FROM "
                    + schema
                    + ".memstack_schema WHERE component = 'builtin:"
                    + schema
                    + ".builtin_'"))
        .as("one row per schema step")
        .isEqualTo(3);
  }

  @Test
  @DisplayName("every commit changes the bucket's version, seen by another store")
  void versions() {
    WorkspaceStore a = store();
    WorkspaceStore b = store();
    write(a, TEAM, "x.md", "hello");
    long v1 = b.version(TEAM);
    a.update(
        TEAM,
        tx -> {
          tx.setMeta(path("x.md"), new FileMeta(true, 3));
          return null;
        });
    assertThat(b.version(TEAM)).isGreaterThan(v1);
    assertThat(b.version(ALICE)).isZero();
  }

  @Test
  @DisplayName("two rewrites in the same millisecond get distinct update times")
  void updateTimesAdvance() {
    WorkspaceStore a = store();
    WorkspaceStore b = store();
    write(a, TEAM, "x.md", "aaaa");
    Instant first = b.entry(TEAM, path("x.md")).orElseThrow().updateTime();
    write(b, TEAM, "x.md", "bbbb");
    assertThat(a.entry(TEAM, path("x.md")).orElseThrow().updateTime()).isAfter(first);
  }

  @Test
  @DisplayName("writers of one bucket on two stores are serialised: no update is lost")
  void concurrentWritersOnTwoStoresLoseNothing() throws Exception {
    WorkspaceStore a = store();
    WorkspaceStore b = store();
    write(a, TEAM, "log.md", "");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        WorkspaceStore store = i % 2 == 0 ? a : b;
        int n = i;
        done.add(
            pool.submit(
                () ->
                    store.update(
                        TEAM,
                        tx -> {
                          String now = tx.read(path("log.md")).orElse("");
                          tx.write(path("log.md"), now + "line " + n + "\n", OFF);
                          return null;
                        })));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    assertThat(a.read(TEAM, path("log.md")).orElseThrow().lines()).hasSize(40);
  }
}
