package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;

class QuietMergesTest {

  private static IndexWriter writer(ByteBuffersDirectory dir) throws IOException {
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer());
    // no natural merges: every flush stays a segment of its own, as between tiered merges
    config.setMergePolicy(QuietMerges.policy(NoMergePolicy.INSTANCE));
    return new IndexWriter(dir, config);
  }

  private static void addSegment(IndexWriter writer, String prefix, int docs) throws IOException {
    for (int i = 0; i < docs; i++) {
      Document doc = new Document();
      doc.add(new StringField("id", prefix + i, Field.Store.YES));
      doc.add(
          new TextField(
              "text", "some words to make the segment " + prefix + " " + i, Field.Store.YES));
      writer.addDocument(doc);
    }
    writer.flush();
  }

  private static int segments(IndexWriter writer) throws IOException {
    try (DirectoryReader reader = DirectoryReader.open(writer)) {
      return reader.leaves().size();
    }
  }

  private static int docs(IndexWriter writer) throws IOException {
    try (DirectoryReader reader = DirectoryReader.open(writer)) {
      return reader.numDocs();
    }
  }

  @Test
  void mergesTheSmallSegmentsAndLeavesTheLargestWhileTheyAreSmall() throws IOException {
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
        IndexWriter writer = writer(dir)) {
      addSegment(writer, "big", 20_000);
      for (int s = 0; s < 6; s++) {
        addSegment(writer, "small" + s + "-", 10);
      }
      writer.deleteDocuments(new Term("id", "small0-3"));
      assertThat(segments(writer)).isEqualTo(7);

      QuietMerges.mergeSmallSegments(writer);

      assertThat(segments(writer)).isEqualTo(2);
      assertThat(docs(writer)).isEqualTo(20_000 + 60 - 1);
      QuietMerges.mergeSmallSegments(writer); // one small segment beside the largest: nothing
      assertThat(segments(writer)).isEqualTo(2);
    }
  }

  @Test
  void mergesEverythingOnceTheOthersHoldAQuarterOfTheLargest() throws IOException {
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
        IndexWriter writer = writer(dir)) {
      addSegment(writer, "big", 400);
      for (int s = 0; s < 4; s++) {
        addSegment(writer, "other" + s + "-", 40);
      }
      QuietMerges.mergeSmallSegments(writer);
      assertThat(segments(writer)).isEqualTo(1);
      assertThat(docs(writer)).isEqualTo(560);
    }
  }

  @Test
  void leavesAnIndexWhoseFolderIsGoneAlone(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws IOException {
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer());
    config.setMergePolicy(QuietMerges.policy(NoMergePolicy.INSTANCE));
    java.util.List<Throwable> uncaught = new java.util.concurrent.CopyOnWriteArrayList<>();
    config.setMergeScheduler(
        new org.apache.lucene.index.ConcurrentMergeScheduler() {
          @Override
          protected void handleMergeException(Throwable exc) {
            uncaught.add(exc);
          }
        });
    try (org.apache.lucene.store.FSDirectory files =
        org.apache.lucene.store.FSDirectory.open(dir)) {
      IndexWriter writer = new IndexWriter(files, config);
      addSegment(writer, "a", 10);
      addSegment(writer, "b", 10);
      try (java.util.stream.Stream<java.nio.file.Path> all = java.nio.file.Files.list(dir)) {
        for (java.nio.file.Path file : all.toList()) {
          java.nio.file.Files.delete(file); // as a test's temporary folder under a cached context
        }
      }

      QuietMerges.mergeSmallSegments(writer);

      assertThat(uncaught).isEmpty();
      try {
        writer.rollback();
      } catch (IOException expected) {
        // its lock file is gone too
      }
    }
  }

  @Test
  void leavesOneSegmentAlone() throws IOException {
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
        IndexWriter writer = writer(dir)) {
      addSegment(writer, "only", 50);
      QuietMerges.mergeSmallSegments(writer);
      assertThat(segments(writer)).isEqualTo(1);
    }
  }

  @Test
  void mergesOnlyAfterTheWritesHaveGoneQuiet() throws Exception {
    AtomicInteger merges = new AtomicInteger();
    CountDownLatch merged = new CountDownLatch(1);
    long[] now = {0};
    try (QuietMerges quiet =
        new QuietMerges(
            "test-merge",
            () -> {
              merges.incrementAndGet();
              merged.countDown();
            },
            Duration.ofMillis(200),
            () -> now[0])) {
      quiet.wrote();
      // the check comes 200 ms later by the wall clock, but the write was just now by the index's
      // clock: it waits again
      Thread.sleep(400);
      assertThat(merges).hasValue(0);
      now[0] = Duration.ofMillis(250).toNanos();
      assertThat(merged.await(5, TimeUnit.SECONDS)).isTrue();
      Thread.sleep(300);
      assertThat(merges).hasValue(1); // once a quiet spell, not again until the next write
    }
  }

  @Test
  void noMergeAfterClose() throws Exception {
    AtomicInteger merges = new AtomicInteger();
    QuietMerges quiet =
        new QuietMerges(
            "test-merge", merges::incrementAndGet, Duration.ofMillis(50), System::nanoTime);
    quiet.wrote();
    quiet.close();
    Thread.sleep(200);
    assertThat(merges).hasValue(0);
  }
}
