package dev.memstack.builtin.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of {@link KeywordIndex}, which every index passes with the store it belongs to:
 * extend it and say how to open the {@link StoreAdapters} on the storage under test (the same
 * storage for every call within one test). Files are written through the store, whose listener
 * hands each commit to {@link KeywordIndex#committed}, as the provider wires them; searches go to
 * the index.
 */
public abstract class KeywordIndexConformance {

  protected static final Instant NOW = Instant.parse("2026-04-01T09:30:00Z");
  protected static final AgentId AGENT = AgentId.of("a1");
  protected static final Bucket TEAM = Bucket.team(AGENT);
  protected static final Bucket ALICE = Bucket.personal(AGENT, OwnerKey.of("user:alice"));
  protected static final Bucket BOB = Bucket.personal(AGENT, OwnerKey.of("user:bob"));
  private static final FileMeta OFF = new FileMeta(false, 100);
  private static final Predicate<WorkspacePath> WEIGHTED = p -> p.value().equals("MEMORY.md");

  @TempDir protected Path dataDir;

  private final List<Opened> opened = new ArrayList<>();

  /** The adapters of the store under test on the storage of this test. */
  protected abstract StoreAdapters open(Stores.Needs needs);

  /** A store and its index, wired as the provider wires them. */
  protected record Opened(StoreAdapters adapters, KeywordIndex index, WorkspaceStore store) {

    void write(Bucket bucket, String file, String content) {
      store.update(
          bucket,
          tx -> {
            tx.write(WorkspacePath.of(file), content, OFF);
            return null;
          });
    }

    List<KeywordHit> search(Collection<Bucket> buckets, String query) {
      return index.search(buckets, query, 10, 50, 1.5, List.of());
    }

    void close() {
      index.commit();
      index.close();
      store.close();
      adapters.close();
    }
  }

  protected Opened openStore() {
    StoreAdapters adapters =
        open(
            new Stores.Needs(
                dataDir,
                Clock.fixed(NOW, ZoneOffset.UTC),
                80,
                Duration.ZERO,
                null,
                p -> OFF,
                WEIGHTED));
    KeywordIndex index = adapters.keywordIndex();
    WorkspaceStore store =
        adapters.workspaceStore((bucket, changes) -> index.committed(bucket, changes, WEIGHTED));
    index.catchUp(store, WEIGHTED);
    Opened result = new Opened(adapters, index, store);
    opened.add(result);
    return result;
  }

  @AfterEach
  void closeAll() {
    opened.forEach(Opened::close);
  }

  @Test
  @DisplayName("finds only what the given buckets hold, with the line of the match")
  void findsOnlyTheGivenBuckets() {
    Opened s = openStore();
    s.write(ALICE, "memory/2026-04-01.md", "# d\n\nAlice likes the opera\nand jazz");
    s.write(BOB, "memory/2026-04-01.md", "Bob likes jazz");
    s.write(TEAM, "MEMORY.md", "everyone likes jazz");

    List<KeywordHit> hits = s.search(List.of(ALICE, TEAM), "jazz");

    assertThat(hits).extracting(KeywordHit::bucket).containsExactly(TEAM, ALICE);
    assertThat(hits.get(1).line()).isEqualTo(4);
    assertThat(hits.get(1).text()).isEqualTo("Alice likes the opera\nand jazz");
    assertThat(hits.get(1).updateTime()).isEqualTo(NOW);
    assertThat(s.search(List.of(ALICE), "opera")).hasSize(1);
    assertThat(s.search(List.of(BOB), "opera")).isEmpty();
    assertThat(s.search(List.of(ALICE), "")).isEmpty();
    assertThat(s.search(List.of(), "jazz")).isEmpty();
  }

  @Test
  @DisplayName("caps the files hits come from and leaves out excluded files")
  void capsFilesAndLeavesOutExcludedOnes() {
    Opened s = openStore();
    s.write(ALICE, "a.md", "jazz tonight");
    s.write(BOB, "b.md", "jazz tomorrow");
    s.write(TEAM, "MEMORY.md", "jazz always");

    assertThat(s.index.search(List.of(ALICE, BOB, TEAM), "jazz", 10, 2, 1.5, List.of())).hasSize(2);
    assertThat(
            s.index.search(
                List.of(ALICE, TEAM),
                "jazz",
                10,
                50,
                1.5,
                List.of(KeywordIndex.fileKey(TEAM, WorkspacePath.of("MEMORY.md")))))
        .extracting(KeywordHit::bucket)
        .containsExactly(ALICE);
    assertThat(s.index.search(List.of(ALICE, BOB, TEAM), "jazz", 1, 50, 1.5, List.of())).hasSize(1);
  }

  @Test
  @DisplayName("weighted files rank above the same text in other files")
  void weightedFilesRankFirst() {
    Opened s = openStore();
    s.write(TEAM, "notes.md", "The ferry leaves at nine.");
    s.write(TEAM, "MEMORY.md", "The ferry leaves at nine.");

    List<KeywordHit> hits = s.search(List.of(TEAM), "ferry");

    assertThat(hits).extracting(h -> h.path().value()).containsExactly("MEMORY.md", "notes.md");
    assertThat(hits.get(0).score()).isGreaterThan(hits.get(1).score());
  }

  @Test
  @DisplayName("splits CJK text into bigrams and keeps Latin words whole")
  void cjkAndLatin() {
    Opened s = openStore();
    s.write(ALICE, "memory/2026-04-01.md", "我们在上海见面了。\n\nThe ferry code is ZX-41.");
    s.write(BOB, "memory/2026-04-01.md", "我们在上海见面了。The ferry code is ZX-41.");
    s.write(TEAM, "notes.md", "Nothing here about boats.");

    List<KeywordHit> hits = s.search(List.of(ALICE, TEAM), "上海");
    assertThat(hits).singleElement().satisfies(hit -> assertThat(hit.bucket()).isEqualTo(ALICE));
    assertThat(hits.get(0).line()).isEqualTo(1);
    assertThat(s.search(List.of(ALICE, TEAM), "ferry zx"))
        .singleElement()
        .satisfies(
            hit -> {
              assertThat(hit.line()).isEqualTo(3);
              assertThat(hit.text()).isEqualTo("The ferry code is ZX-41.");
              assertThat(hit.snippet()).isEqualTo("The ferry code is ZX-41.");
            });
    assertThat(s.search(List.of(TEAM), "上海 ferry")).isEmpty();
    assertThat(s.search(List.of(ALICE, BOB), "ferry")).hasSize(2);
  }

  @Test
  @DisplayName(
      "a rewrite replaces the old text; a deleted bucket leaves no hit, also after expunging")
  void rewritesAndDeletes() {
    Opened s = openStore();
    s.write(ALICE, "MEMORY.md", "Quince likes herring.");
    s.write(ALICE, "MEMORY.md", "Quince likes mackerel.");
    assertThat(s.search(List.of(ALICE), "herring")).isEmpty();
    assertThat(s.search(List.of(ALICE), "mackerel")).hasSize(1);

    s.store.delete(ALICE);
    assertThat(s.search(List.of(ALICE), "mackerel")).isEmpty();
    s.index.expungeDeletes();
    assertThat(s.search(List.of(ALICE), "mackerel")).isEmpty();
  }

  @Test
  @DisplayName("an index opened again on the same storage finds what was written before")
  void reopenedIndexFindsEarlierWrites() {
    Opened first = openStore();
    first.write(TEAM, "notes.md", "The lighthouse keeper is Morwenna.");
    opened.remove(first);
    first.close();

    Opened second = openStore();

    assertThat(second.search(List.of(TEAM), "lighthouse"))
        .singleElement()
        .satisfies(hit -> assertThat(hit.path().value()).isEqualTo("notes.md"));
  }
}
