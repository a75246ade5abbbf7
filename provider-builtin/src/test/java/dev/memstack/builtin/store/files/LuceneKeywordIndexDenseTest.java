package dev.memstack.builtin.store.files;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.builtin.store.Change;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.store.KeywordIndex;
import dev.memstack.builtin.store.KeywordQuery;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.tck.HashingEmbedder;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LuceneKeywordIndexDenseTest {

  private static final Bucket ALICE = Bucket.personal(AgentId.of("a1"), OwnerKey.of("user:alice"));
  private static final Bucket BOB = Bucket.personal(AgentId.of("a1"), OwnerKey.of("user:bob"));
  private static final WorkspacePath NOTE = WorkspacePath.of("memory/2026-04-01.md");

  @TempDir Path dir;

  private static void index(LuceneKeywordIndex index, Bucket bucket, String content) {
    index.replace(bucket, NOTE, content, new FileStamp(1, 1), Instant.EPOCH, false);
    index.refresh();
  }

  @Test
  @DisplayName(
      "the dense view finds the nearest paragraphs of the caller's buckets only, by cosine")
  void nearestInTheCallersBuckets() {
    try (LuceneKeywordIndex index =
        new LuceneKeywordIndex(dir, 80, Duration.ZERO, new HashingEmbedder())) {
      index(index, ALICE, "# d\n\nopera tickets for friday\n\nthe garden needs water");
      index(index, BOB, "opera tickets for friday");

      List<KeywordHit> hits = index.nearest(List.of(ALICE), "opera tickets", 5, Set.of());

      assertThat(hits).extracting(KeywordHit::bucket).containsOnly(ALICE);
      assertThat(hits.get(0).text()).isEqualTo("opera tickets for friday");
      assertThat(hits.get(0).score()).isBetween(0.5, 1.0);
      assertThat(hits.get(0).score()).isGreaterThan(hits.get(1).score());
      assertThat(hits).noneMatch(h -> h.text().equals("# d")); // a heading alone has no vector
      assertThat(
              index.nearest(List.of(ALICE), "opera", 5, Set.of(KeywordIndex.fileKey(ALICE, NOTE))))
          .isEmpty();
    }
  }

  @Test
  @DisplayName("hits past the snippets asked for keep their paragraph's first line")
  void snippetsOnlyForTheFirstHits() {
    try (LuceneKeywordIndex index = new LuceneKeywordIndex(dir, 80, Duration.ZERO)) {
      index(index, ALICE, "### 09:30\n**User:** jazz tonight\n\n### 09:40\n**User:** more jazz");

      List<KeywordHit> placed =
          index.search(new KeywordQuery(List.of(ALICE), "jazz", 5, 50, 1.0, Set.of(), 5));
      List<KeywordHit> unplaced =
          index.search(new KeywordQuery(List.of(ALICE), "jazz", 5, 50, 1.0, Set.of(), 0));

      assertThat(placed).extracting(KeywordHit::line).containsExactlyInAnyOrder(2, 5);
      assertThat(unplaced).extracting(KeywordHit::line).containsExactlyInAnyOrder(1, 4);
      assertThat(unplaced)
          .extracting(KeywordHit::text)
          .isEqualTo(placed.stream().map(KeywordHit::text).toList());
    }
  }

  @Test
  @DisplayName(
      "an index without the view has no dense hits, and opening it with the view empties it")
  void viewAndVersion() {
    try (LuceneKeywordIndex index = new LuceneKeywordIndex(dir, 80, Duration.ZERO)) {
      index(index, ALICE, "opera tickets");
      assertThat(index.dense()).isFalse();
      assertThat(index.nearest(List.of(ALICE), "opera", 5, Set.of())).isEmpty();
      index.commit();
    }
    try (LuceneKeywordIndex index =
        new LuceneKeywordIndex(dir, 80, Duration.ZERO, new HashingEmbedder())) {
      assertThat(index.dense()).isTrue();
      assertThat(index.stamps()).as("rebuilt from the files by the caller").isEmpty();
    }
  }

  private static Change written(Bucket bucket, String content) {
    return new Change(
        bucket, NOTE, null, new FileEntry(NOTE, true, 0, content.length(), Instant.EPOCH), content);
  }

  @Test
  @DisplayName(
      "a batch embeds the paragraphs it announces in one call and makes its commits searchable"
          + " together when it ends")
  void batchEmbedsUpFrontAndRefreshesOnceAtTheEnd() {
    DenseViewTest.CountingEmbedder embedder = new DenseViewTest.CountingEmbedder();
    try (LuceneKeywordIndex index = new LuceneKeywordIndex(dir, 80, Duration.ZERO, embedder)) {
      String alices = "# d\n\n**User:** opera tickets for friday";
      String bobs = "# d\n\n**User:** the garden needs water";

      int calls =
          index.batch(
              List.of(alices, bobs),
              () -> {
                assertThat(embedder.passages)
                    .containsExactly(
                        "User: opera tickets for friday", "User: the garden needs water");
                index.committed(ALICE, List.of(written(ALICE, alices)), path -> false);
                index.committed(BOB, List.of(written(BOB, bobs)), path -> false);
                // committed, not yet searchable: the batch refreshes once, at its end
                assertThat(index.nearest(List.of(ALICE, BOB), "opera", 5, Set.of())).isEmpty();
                return embedder.passages.size();
              });

      assertThat(calls).isEqualTo(2); // the commits took the vectors embedded up front
      assertThat(embedder.passages).hasSize(2);
      assertThat(index.nearest(List.of(ALICE), "opera tickets", 5, Set.of()))
          .extracting(KeywordHit::text)
          .contains("**User:** opera tickets for friday");
      assertThat(index.nearest(List.of(BOB), "garden water", 5, Set.of()))
          .extracting(KeywordHit::text)
          .contains("**User:** the garden needs water");

      // outside a batch, a commit is searchable when committed returns
      index.committed(ALICE, List.of(written(ALICE, alices + "\n\nsecond paragraph")), p -> false);
      assertThat(index.nearest(List.of(ALICE), "second paragraph", 5, Set.of()))
          .extracting(KeywordHit::text)
          .contains("second paragraph");
    }
  }
}
