package dev.memstack.builtin.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.builtin.memory.WorkspaceRules;
import dev.memstack.builtin.store.Change;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.FileMeta;
import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.tck.MutableClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The PostgreSQL workspace store and keyword index, two instances on one database. */
@DisplayName("PostgresWorkspaceStore")
class PostgresWorkspaceStoreTest {

  static final AgentId AGENT = AgentId.of("a1");
  static final Bucket TEAM = Bucket.team(AGENT);
  static final Bucket ALICE = Bucket.personal(AGENT, OwnerKey.of("user:alice"));
  static final Bucket BOB = Bucket.personal(AGENT, OwnerKey.of("user:bob"));
  static final FileMeta OFF = new FileMeta(false, 100);

  PgTestDatabase db;
  String schema;
  final MutableClock clock = MutableClock.at(Instant.parse("2026-04-01T09:30:00Z"));
  final List<Change> heard = new ArrayList<>();
  PostgresWorkspaceStore a;
  PostgresWorkspaceStore b;

  @BeforeEach
  void open() {
    db = PgTestDatabase.fromEnvironment();
    schema = PgTestDatabase.newSchema();
    a = store();
    b = store();
  }

  PostgresWorkspaceStore store() {
    PgWorkspaceDatabase database = PgWorkspaceDatabase.open(db.settings(schema));
    return new PostgresWorkspaceStore(
        database,
        new PostgresKeywordIndex(database, 80),
        clock,
        WorkspaceRules::isCoreForSearch,
        (bucket, changes) -> heard.addAll(changes));
  }

  @AfterEach
  void close() {
    if (a != null) {
      a.close();
      b.close();
      db.dropSchema(schema);
    }
  }

  static WorkspacePath path(String value) {
    return WorkspacePath.of(value);
  }

  void write(PostgresWorkspaceStore store, Bucket bucket, String file, String content) {
    store.update(
        bucket,
        tx -> {
          tx.write(path(file), content, OFF);
          return null;
        });
  }

  List<KeywordHit> search(PostgresWorkspaceStore store, List<Bucket> buckets, String query) {
    return new PostgresKeywordIndex(store.database(), 80)
        .search(buckets, query, 10, 50, 1.5, Set.of());
  }

  @Test
  @DisplayName("the schema is created once; a second open finds it at its version")
  void schemaIsVersioned() {
    assertThat(
            db.count(
                "SELECT count(*) FROM "
                    + schema
                    + ".memstack_schema WHERE component = 'builtin:"
                    + schema
                    + ".builtin_'"))
        .as("one row per schema step")
        .isEqualTo(2);
  }

  @Test
  @DisplayName("writes of one transaction land together; a failing transaction writes nothing")
  void transactionsAreAtomic() {
    a.update(
        TEAM,
        tx -> {
          tx.write(path("one.md"), "first", OFF);
          tx.write(path("notes/two.md"), "second", new FileMeta(true, 5));
          tx.markSeeded();
          assertThat(tx.read(path("one.md"))).contains("first");
          return null;
        });
    assertThat(b.list(TEAM))
        .extracting(e -> e.path().value())
        .containsExactly("notes/two.md", "one.md");
    assertThat(b.seeded(TEAM)).isTrue();
    long version = b.version(TEAM);

    assertThatThrownBy(
            () ->
                a.update(
                    TEAM,
                    tx -> {
                      tx.write(path("one.md"), "changed", OFF);
                      tx.write(path("three.md"), "third", OFF);
                      throw new IllegalStateException("boom");
                    }))
        .hasMessage("boom");
    assertThat(b.read(TEAM, path("one.md"))).contains("first");
    assertThat(b.entry(TEAM, path("three.md"))).isEmpty();
    assertThat(b.version(TEAM)).isEqualTo(version);
    assertThat(search(b, List.of(TEAM), "third")).isEmpty();
  }

  @Test
  @DisplayName("metadata changes keep the content; every commit changes the bucket's version")
  void metadataAndVersions() {
    write(a, TEAM, "x.md", "hello");
    long v1 = b.version(TEAM);
    a.update(
        TEAM,
        tx -> {
          tx.setMeta(path("x.md"), new FileMeta(true, 3));
          return null;
        });
    FileEntry entry = b.entry(TEAM, path("x.md")).orElseThrow();
    assertThat(entry.enabled()).isTrue();
    assertThat(entry.sortOrder()).isEqualTo(3);
    assertThat(entry.size()).isEqualTo(5);
    assertThat(b.version(TEAM)).isGreaterThan(v1);
    assertThat(b.version(ALICE)).isZero();
    assertThat(heard).extracting(Change::path).containsExactly(path("x.md"), path("x.md"));
  }

  @Test
  @DisplayName("two rewrites in the same millisecond get distinct update times")
  void updateTimesAdvance() {
    write(a, TEAM, "x.md", "aaaa");
    Instant first = b.entry(TEAM, path("x.md")).orElseThrow().updateTime();
    write(b, TEAM, "x.md", "bbbb");
    assertThat(a.entry(TEAM, path("x.md")).orElseThrow().updateTime()).isAfter(first);
  }

  @Test
  @DisplayName("the sandbox refuses owners/ in team scope and files used as directories")
  void sandbox() {
    write(a, TEAM, "notes/a.md", "x");
    assertThatThrownBy(() -> a.checkPath(TEAM, path("owners/x.md")))
        .isInstanceOf(InvalidWorkspacePathException.class)
        .hasMessageContaining("owners/");
    a.checkPath(ALICE, path("owners/x.md"));
    write(a, TEAM, "plain.md", "x");
    assertThatThrownBy(() -> write(b, TEAM, "plain.md/deeper.md", "y"))
        .isInstanceOf(InvalidWorkspacePathException.class)
        .hasMessageContaining("which is a file");
  }

  @Test
  @DisplayName("writers of one bucket on two stores are serialised: no update is lost")
  void concurrentWritersLoseNothing() throws Exception {
    write(a, TEAM, "log.md", "");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        PostgresWorkspaceStore store = i % 2 == 0 ? a : b;
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

  @Test
  @DisplayName("keyword search: CJK bigrams, Latin words, and never another owner's rows")
  void keywordSearch() {
    write(a, ALICE, "memory/2026-04-01.md", "我们在上海见面了。\n\nThe ferry code is ZX-41.");
    write(a, BOB, "memory/2026-04-01.md", "我们在上海见面了。The ferry code is ZX-41.");
    write(a, TEAM, "notes.md", "Nothing here about boats.");

    List<KeywordHit> hits = search(b, List.of(ALICE, TEAM), "上海");
    assertThat(hits).hasSize(1);
    assertThat(hits.get(0).bucket()).isEqualTo(ALICE);
    assertThat(hits.get(0).line()).isEqualTo(1);
    assertThat(search(b, List.of(ALICE, TEAM), "ferry zx"))
        .singleElement()
        .satisfies(
            hit -> {
              assertThat(hit.line()).isEqualTo(3);
              assertThat(hit.text()).isEqualTo("The ferry code is ZX-41.");
            });
    assertThat(search(b, List.of(TEAM), "上海 ferry")).isEmpty();
    assertThat(search(b, List.of(ALICE, BOB), "ferry")).hasSize(2);
  }

  @Test
  @DisplayName("deleting a bucket removes its files, index rows and counters")
  void deleteBucket() {
    write(a, ALICE, "MEMORY.md", "Quince likes herring.");
    assertThat(a.personalBuckets(OwnerKey.of("user:alice"))).containsExactly(ALICE);
    assertThat(b.delete(ALICE)).isEqualTo(1);
    assertThat(a.list(ALICE)).isEmpty();
    assertThat(a.buckets()).doesNotContain(ALICE);
    assertThat(search(a, List.of(ALICE), "herring")).isEmpty();
  }
}
