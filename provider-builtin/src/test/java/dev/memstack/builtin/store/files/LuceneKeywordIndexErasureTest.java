package dev.memstack.builtin.store.files;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After a file is removed and the index expunged, the index files keep nothing of it: no deleted
 * entry in any segment (which a grep could miss, as Lucene compresses what it stores) and not its
 * words or bucket in the terms.
 */
class LuceneKeywordIndexErasureTest {

  private static final WorkspacePath NOTE = WorkspacePath.of("memory/2026-04-01.md");

  @TempDir Path dir;

  @Test
  @DisplayName("an expunge leaves no deleted entry, term or byte of a removed file in the index")
  void expungeLeavesNoTraceOfRemovedFiles() throws IOException {
    Random random = new Random(7);
    String gone = marker(random);
    String kept = marker(random);
    Bucket alice = Bucket.personal(AgentId.of("a1"), OwnerKey.of("user:alice"));
    Bucket bob = Bucket.personal(AgentId.of("a1"), OwnerKey.of("user:bob"));
    try (LuceneKeywordIndex index = new LuceneKeywordIndex(dir, 80, Duration.ZERO)) {
      // one segment holds many notes, as a busy index does: removing one leaves a deleted entry
      // (too few for the merge policy to reclaim it on its own)
      index.replace(alice, NOTE, "Alice said " + gone, new FileStamp(1, 1), Instant.EPOCH, false);
      index.replace(bob, NOTE, "Bob said " + kept, new FileStamp(1, 1), Instant.EPOCH, false);
      for (int i = 0; i < 10; i++) {
        Bucket other = Bucket.personal(AgentId.of("a1"), OwnerKey.of("user:" + i));
        index.replace(
            other, NOTE, "User " + i + " said hello", new FileStamp(1, 1), Instant.EPOCH, false);
      }
      index.refresh();
      index.remove(alice, NOTE);
      index.refresh();
      index.commit();
      try (DirectoryReader before = DirectoryReader.open(FSDirectory.open(dir))) {
        assertThat(before.maxDoc()).as("a deleted entry").isGreaterThan(before.numDocs());
      }

      index.expungeDeletes();

      try (DirectoryReader after = DirectoryReader.open(FSDirectory.open(dir))) {
        assertThat(after.maxDoc()).isEqualTo(after.numDocs());
        assertThat(after.docFreq(new Term("bucket", alice.key()))).isZero();
        assertThat(after.docFreq(new Term("text", gone))).isZero();
        assertThat(after.docFreq(new Term("text", kept))).isOne();
      }
      assertThat(filesContaining(gone)).isEmpty();
      assertThat(index.search(List.of(alice, bob), gone + " " + kept, 10, 10, 1.0, List.of()))
          .extracting(KeywordHit::bucket)
          .containsExactly(bob);
    }
  }

  /** A long random lower-case word: one token, and no compressor finds it twice by chance. */
  private static String marker(Random random) {
    StringBuilder word = new StringBuilder("zq");
    for (int i = 0; i < 30; i++) {
      word.append((char) ('a' + random.nextInt(26)));
    }
    return word.toString();
  }

  private List<Path> filesContaining(String text) throws IOException {
    byte[] needle = text.getBytes(StandardCharsets.UTF_8);
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .filter(file -> contains(read(file), needle))
          .toList();
    }
  }

  private static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
