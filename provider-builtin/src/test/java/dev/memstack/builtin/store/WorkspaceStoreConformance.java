package dev.memstack.builtin.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link WorkspaceStore}, which every store passes: extend it and say how to open a
 * store on the storage under test (the same storage for every call within one test, so a second
 * store sees what the first committed, as a restart or another host does). Stores are closed after
 * each test.
 */
public abstract class WorkspaceStoreConformance {

  protected static final Instant NOW = Instant.parse("2026-04-01T10:00:00.123Z");
  protected static final AgentId AGENT = AgentId.of("a1");
  protected static final Bucket TEAM = Bucket.team(AGENT);
  protected static final Bucket ALICE = Bucket.personal(AGENT, OwnerKey.of("user:alice"));
  protected static final Bucket BOB = Bucket.personal(AGENT, OwnerKey.of("user:bob"));
  protected static final FileMeta OFF = new FileMeta(false, 100);

  /** What the stores of this test heard, in order. */
  protected final List<Change> heard = new CopyOnWriteArrayList<>();

  private final List<WorkspaceStore> opened = new ArrayList<>();

  /**
   * A store on the storage of this test.
   *
   * @param clock stamps update times
   * @param listener told of every commit
   */
  protected abstract WorkspaceStore open(Clock clock, ChangeListener listener);

  /** A store at {@link #NOW} whose commits are recorded in {@link #heard}. */
  protected WorkspaceStore store() {
    WorkspaceStore store =
        open(Clock.fixed(NOW, ZoneOffset.UTC), (bucket, changes) -> heard.addAll(changes));
    opened.add(store);
    return store;
  }

  @AfterEach
  void closeStores() {
    opened.forEach(WorkspaceStore::close);
  }

  protected static WorkspacePath path(String value) {
    return WorkspacePath.of(value);
  }

  protected static void write(WorkspaceStore store, Bucket bucket, String file, String content) {
    store.update(
        bucket,
        tx -> {
          tx.write(path(file), content, OFF);
          return null;
        });
  }

  @Test
  @DisplayName("writes several files in one commit, with their metadata, size and update time")
  void writesSeveralFilesInOneCommit() {
    WorkspaceStore store = store();
    store.update(
        TEAM,
        tx -> {
          tx.write(path("A.md"), "alpha", new FileMeta(true, 1));
          tx.write(path("memory/2026-04-01.md"), "note", new FileMeta(false, 9));
          return null;
        });

    assertThat(store.list(TEAM))
        .containsExactly(
            new FileEntry(path("A.md"), true, 1, 5, NOW),
            new FileEntry(path("memory/2026-04-01.md"), false, 9, 4, NOW));
    assertThat(store.read(TEAM, path("A.md"))).contains("alpha");
    assertThat(store.entry(TEAM, path("memory/2026-04-01.md")).orElseThrow().size()).isEqualTo(4);
    assertThat(heard).hasSize(2).allMatch(c -> c.before() == null && c.content() != null);
  }

  @Test
  @DisplayName("lists by sort order, then name")
  void listsBySortOrderThenName() {
    WorkspaceStore store = store();
    store.update(
        TEAM,
        tx -> {
          tx.write(path("b.md"), "b", new FileMeta(true, 2));
          tx.write(path("a.md"), "a", new FileMeta(true, 2));
          tx.write(path("z.md"), "z", new FileMeta(true, 1));
          return null;
        });
    assertThat(store.list(TEAM))
        .extracting(e -> e.path().value())
        .containsExactly("z.md", "a.md", "b.md");
  }

  @Test
  @DisplayName("writes nothing and tells nobody when the work throws")
  void writesNothingWhenTheWorkThrows() {
    WorkspaceStore store = store();
    write(store, TEAM, "one.md", "first");
    heard.clear();

    assertThatThrownBy(
            () ->
                store.update(
                    TEAM,
                    tx -> {
                      tx.write(path("one.md"), "changed", OFF);
                      tx.write(path("two.md"), "second", OFF);
                      tx.markSeeded();
                      throw new IllegalStateException("changed my mind");
                    }))
        .hasMessage("changed my mind");

    WorkspaceStore other = store();
    assertThat(other.read(TEAM, path("one.md"))).contains("first");
    assertThat(other.entry(TEAM, path("two.md"))).isEmpty();
    assertThat(other.seeded(TEAM)).isFalse();
    assertThat(heard).isEmpty();
  }

  @Test
  @DisplayName("a transaction reads its own writes; the seeded flag is kept")
  void aTransactionReadsItsOwnWrites() {
    WorkspaceStore store = store();
    assertThat(store.seeded(TEAM)).isFalse();
    store.update(
        TEAM,
        tx -> {
          tx.write(path("one.md"), "first", OFF);
          assertThat(tx.read(path("one.md"))).contains("first");
          assertThat(tx.list()).extracting(FileEntry::path).containsExactly(path("one.md"));
          assertThat(tx.seeded()).isFalse();
          tx.markSeeded();
          assertThat(tx.seeded()).isTrue();
          return null;
        });
    assertThat(store().seeded(TEAM)).isTrue();
  }

  @Test
  @DisplayName("metadata changes keep the content and are told to the listener")
  void metadataChangesKeepTheContent() {
    WorkspaceStore store = store();
    write(store, TEAM, "x.md", "hello");
    store.update(
        TEAM,
        tx -> {
          tx.setMeta(path("x.md"), new FileMeta(true, 3));
          return null;
        });

    FileEntry entry = store().entry(TEAM, path("x.md")).orElseThrow();
    assertThat(entry.enabled()).isTrue();
    assertThat(entry.sortOrder()).isEqualTo(3);
    assertThat(entry.size()).isEqualTo(5);
    assertThat(store.read(TEAM, path("x.md"))).contains("hello");
    assertThat(heard).extracting(Change::path).containsExactly(path("x.md"), path("x.md"));
    assertThat(heard.get(1).contentChanged()).isFalse();
    assertThat(heard.get(1).touchesEnabled()).isTrue();
    assertThatThrownBy(
            () ->
                store.update(
                    TEAM,
                    tx -> {
                      tx.setMeta(path("missing.md"), OFF);
                      return null;
                    }))
        .isInstanceOf(java.util.NoSuchElementException.class);
  }

  @Test
  @DisplayName("reserves owners/ in team scope and refuses files used as directories")
  void sandbox() {
    WorkspaceStore store = store();
    write(store, TEAM, "notes.md/a.md", "x");
    write(store, TEAM, "plain.md", "x");

    assertThatThrownBy(() -> store.checkPath(TEAM, path("owners/x.md")))
        .isInstanceOf(InvalidWorkspacePathException.class)
        .hasMessageContaining("owners/");
    store.checkPath(ALICE, path("owners/x.md"));
    assertThatThrownBy(() -> store.checkPath(TEAM, path("notes.md")))
        .isInstanceOf(InvalidWorkspacePathException.class)
        .hasMessageContaining("names a directory");
    assertThatThrownBy(() -> write(store, TEAM, "plain.md/deeper.md", "y"))
        .isInstanceOf(InvalidWorkspacePathException.class)
        .hasMessageContaining("which is a file");
    assertThat(store.list(TEAM)).hasSize(2);
  }

  @Test
  @DisplayName("keeps personal buckets apart, lists them by owner and deletes one whole")
  void personalBuckets() {
    WorkspaceStore store = store();
    write(store, ALICE, "MEMORY.md", "mine");
    write(store, ALICE, "memory/2026-04-01.md", "note");
    write(store, BOB, "MEMORY.md", "his");
    write(store, TEAM, "AGENTS.md", "team");

    assertThat(store.list(TEAM)).extracting(FileEntry::path).containsExactly(path("AGENTS.md"));
    assertThat(store.read(BOB, path("MEMORY.md"))).contains("his");
    assertThat(store.buckets()).containsExactlyInAnyOrder(TEAM, ALICE, BOB);
    assertThat(store.personalBuckets(OwnerKey.of("user:alice"))).containsExactly(ALICE);
    heard.clear();

    assertThat(store.delete(ALICE)).isEqualTo(2);

    assertThat(store.list(ALICE)).isEmpty();
    assertThat(store.read(ALICE, path("MEMORY.md"))).isEmpty();
    assertThat(store.buckets()).containsExactlyInAnyOrder(TEAM, BOB);
    assertThat(store.personalBuckets(OwnerKey.of("user:alice"))).isEmpty();
    assertThat(heard).hasSize(2).allMatch(c -> c.after() == null && c.contentChanged());
    assertThat(store.delete(ALICE)).isZero();
  }

  @Test
  @DisplayName("a store opened again on the same storage sees every commit")
  void anotherStoreSeesTheCommits() {
    WorkspaceStore first = store();
    write(first, TEAM, "one.md", "first");
    write(first, ALICE, "MEMORY.md", "mine");
    first.close();

    WorkspaceStore second = store();
    assertThat(second.read(TEAM, path("one.md"))).contains("first");
    assertThat(second.list(ALICE)).extracting(FileEntry::path).containsExactly(path("MEMORY.md"));
    assertThat(second.buckets()).contains(TEAM, ALICE);
  }

  @Test
  @DisplayName("writers of one bucket are serialised: no update is lost")
  void concurrentWritersLoseNothing() throws Exception {
    WorkspaceStore store = store();
    write(store, TEAM, "log.md", "");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
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
    assertThat(store.read(TEAM, path("log.md")).orElseThrow().lines()).hasSize(20);
  }

  @Test
  @DisplayName(
      "a fenced write that read the owner's erasure count before an erasure writes nothing after it")
  void fencedWriteAfterAnErasureWritesNothing() {
    WorkspaceStore store = store();
    OwnerKey alice = ALICE.owner();
    long before = store.erasures(alice);
    write(store, ALICE, "MEMORY.md", "cat: Quince");

    store.countErasure(alice);
    store.delete(ALICE);

    assertThat(store.erasures(alice)).isEqualTo(before + 1);
    assertThatThrownBy(
            () ->
                store.updateFenced(
                    ALICE,
                    before,
                    tx -> {
                      tx.write(path("MEMORY.md"), "cat: Quince, derived", OFF);
                      return null;
                    }))
        .isInstanceOf(OwnerErasedException.class);
    assertThat(store.list(ALICE)).isEmpty();
    assertThat(store.personalBuckets(alice)).isEmpty();
    // a job that began after the erasure writes; others' buckets and shared ones are not fenced
    store.updateFenced(
        ALICE,
        store.erasures(alice),
        tx -> {
          tx.write(path("MEMORY.md"), "new", OFF);
          return null;
        });
    assertThat(store.read(ALICE, path("MEMORY.md"))).contains("new");
    store.updateFenced(
        BOB,
        store.erasures(BOB.owner()),
        tx -> {
          tx.write(path("MEMORY.md"), "bob", OFF);
          return null;
        });
    store.updateFenced(
        TEAM,
        -1,
        tx -> {
          tx.write(path("KNOWLEDGE.md"), "team", OFF);
          return null;
        });
    assertThat(store.read(BOB, path("MEMORY.md"))).contains("bob");
    assertThat(store.read(TEAM, path("KNOWLEDGE.md"))).contains("team");
  }

  @Test
  @DisplayName(
      "an erasure waits for a fenced write under way, so the bucket it created is listed and removed")
  void erasureWaitsForAFencedWriteUnderWay() throws Exception {
    WorkspaceStore store = store();
    OwnerKey alice = ALICE.owner();
    long seen = store.erasures(alice);
    java.util.concurrent.CountDownLatch writing = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> job =
          pool.submit(
              () ->
                  store.updateFenced(
                      ALICE,
                      seen,
                      tx -> {
                        tx.write(path("MEMORY.md"), "derived before the erasure", OFF);
                        writing.countDown();
                        try {
                          release.await();
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                        return null;
                      }));
      assertThat(writing.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      Future<?> erasure = pool.submit(() -> store.countErasure(alice));
      Thread.sleep(300);
      assertThat(erasure.isDone()).as("the erasure waits for the write under way").isFalse();
      release.countDown();
      job.get(10, java.util.concurrent.TimeUnit.SECONDS);
      erasure.get(10, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
    assertThat(store.personalBuckets(alice)).containsExactly(ALICE);
    store.delete(ALICE);
    assertThat(store.personalBuckets(alice)).isEmpty();
    assertThat(store.erasures(alice)).isEqualTo(seen + 1);
  }
}
