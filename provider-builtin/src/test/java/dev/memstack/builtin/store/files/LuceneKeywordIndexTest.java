package dev.memstack.builtin.store.files;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.builtin.search.Paragraphs;
import dev.memstack.builtin.search.WorkspaceAnalyzer;
import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.store.KeywordIndex;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LuceneKeywordIndexTest {

  @TempDir Path dir;

  @Test
  @DisplayName("splits CJK runs into two-character windows and keeps Latin words whole")
  void splitsCjkIntoBigrams() throws Exception {
    assertThat(tokens("用户喜欢手冲咖啡 Café-Latte ２０２６"))
        .containsExactly("用户", "户喜", "喜欢", "欢手", "手冲", "冲咖", "咖啡", "cafe", "latte", "2026");
  }

  @Test
  @DisplayName("indexes paragraphs with their first line and drops HTML comments")
  void indexesParagraphs() {
    List<Paragraphs.Chunk> chunks =
        Paragraphs.chunks("# T\n\n### 09:30 <!-- turn:x -->\nUser: hi\n\n\nlast\n");
    assertThat(chunks)
        .containsExactly(
            new Paragraphs.Chunk(1, "# T"),
            new Paragraphs.Chunk(3, "### 09:30\nUser: hi"),
            new Paragraphs.Chunk(7, "last"));
  }

  @Test
  @DisplayName("cuts a snippet of the given width around the match")
  void cutsASnippetAroundTheMatch() {
    String text = "a".repeat(100) + " needle " + "b".repeat(100);
    String snippet = dev.memstack.builtin.search.KeywordTexts.snippet(text, 101, 107, 80);
    assertThat(snippet).startsWith("…").endsWith("…").contains("needle");
    assertThat(snippet.length()).isEqualTo(82);
  }

  @Test
  @DisplayName("finds only what the given buckets hold, with the line of the match")
  void findsOnlyVisibleBuckets() {
    Bucket alice = Bucket.personal(AgentId.of("a1"), OwnerKey.of("user:alice"));
    Bucket bob = Bucket.personal(AgentId.of("a1"), OwnerKey.of("user:bob"));
    Bucket team = Bucket.team(AgentId.of("a1"));
    try (LuceneKeywordIndex index = new LuceneKeywordIndex(dir, 80, Duration.ZERO)) {
      index.replace(
          alice,
          WorkspacePath.of("memory/2026-04-01.md"),
          "# d\n\nAlice likes the opera\nand jazz",
          new FileStamp(1, 1),
          Instant.EPOCH,
          false);
      index.replace(
          bob,
          WorkspacePath.of("memory/2026-04-01.md"),
          "Bob likes jazz",
          new FileStamp(1, 1),
          Instant.EPOCH,
          false);
      index.replace(
          team,
          WorkspacePath.of("MEMORY.md"),
          "everyone likes jazz",
          new FileStamp(1, 1),
          Instant.EPOCH,
          true);

      index.refresh();
      List<KeywordHit> hits = search(index, List.of(alice, team), "jazz", 10, 50);

      assertThat(hits).extracting(KeywordHit::bucket).containsExactly(team, alice);
      assertThat(hits.get(1).line()).isEqualTo(4);
      assertThat(search(index, List.of(alice), "opera", 10, 50)).hasSize(1);
      assertThat(search(index, List.of(alice), "", 10, 50)).isEmpty();
      assertThat(search(index, List.of(alice, bob, team), "jazz", 10, 2)).hasSize(2);

      assertThat(
              index.search(
                  List.of(alice, team),
                  "jazz",
                  10,
                  50,
                  1.5,
                  List.of(KeywordIndex.fileKey(team, WorkspacePath.of("MEMORY.md")))))
          .extracting(KeywordHit::bucket)
          .containsExactly(alice);
      index.remove(team, WorkspacePath.of("MEMORY.md"));
      index.refresh();
      assertThat(search(index, List.of(team), "jazz", 10, 50)).isEmpty();
      assertThat(index.stamps()).hasSize(2);
    }
  }

  @Test
  @DisplayName("merges its small segments into one and finds what it found before")
  void mergesItsSmallSegments() throws Exception {
    Bucket alice = Bucket.personal(AgentId.of("a1"), OwnerKey.of("user:alice"));
    Bucket bob = Bucket.personal(AgentId.of("a1"), OwnerKey.of("user:bob"));
    try (LuceneKeywordIndex index = new LuceneKeywordIndex(dir, 80, Duration.ZERO)) {
      for (int day = 1; day <= 6; day++) { // each refresh makes a segment
        index.replace(
            day % 2 == 0 ? alice : bob,
            WorkspacePath.of("memory/2026-04-0" + day + ".md"),
            "# d\n\nnote of day " + day + " about jazz\n\nand opera " + day,
            new FileStamp(1, 1),
            Instant.EPOCH,
            false);
        index.refresh();
      }
      index.remove(bob, WorkspacePath.of("memory/2026-04-03.md"));
      index.refresh();
      assertThat(segments()).isGreaterThanOrEqualTo(5); // a wholly deleted segment is dropped
      List<KeywordHit> before = search(index, List.of(alice, bob), "jazz", 20, 50);

      index.mergeSmallSegmentsNow();

      assertThat(segments()).as("merged and committed").isEqualTo(1);
      List<KeywordHit> after = search(index, List.of(alice, bob), "jazz", 20, 50);
      assertThat(after).hasSize(5).containsExactlyInAnyOrderElementsOf(before);
      assertThat(search(index, List.of(bob), "opera", 20, 50)).hasSize(2);
      try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir)) {
        assertThat(files.filter(f -> f.toString().endsWith(".si")))
            .as("old segments deleted")
            .hasSize(1);
      }
    }
  }

  private int segments() throws Exception {
    try (org.apache.lucene.index.DirectoryReader reader =
        org.apache.lucene.index.DirectoryReader.open(
            org.apache.lucene.store.FSDirectory.open(dir))) {
      return reader.leaves().size();
    }
  }

  private static List<KeywordHit> search(
      LuceneKeywordIndex index, List<Bucket> buckets, String query, int limit, int maxFiles) {
    return index.search(buckets, query, limit, maxFiles, 1.5, List.of());
  }

  private static List<String> tokens(String text) throws Exception {
    List<String> tokens = new ArrayList<>();
    try (WorkspaceAnalyzer analyzer = new WorkspaceAnalyzer();
        TokenStream stream = analyzer.tokenStream("text", text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        tokens.add(term.toString());
      }
      stream.end();
    }
    return tokens;
  }
}
