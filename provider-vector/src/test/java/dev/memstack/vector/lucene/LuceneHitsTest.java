package dev.memstack.vector.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Ranking hits of the embedded store")
class LuceneHitsTest {

  @Test
  @DisplayName("carry the stored metadata, also for documents written without the doc values")
  void sameMetadataWithAndWithoutDocValues() throws Exception {
    try (ByteBuffersDirectory directory = new ByteBuffersDirectory()) {
      try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig())) {
        for (int i = 0; i < 40; i++) {
          Document doc = LuceneRecords.toLucene(record(i), new float[] {1, 0, 0, 0}, i % 2 == 0);
          if (i % 3 == 0) {
            doc.removeField(LuceneRecords.RANKING); // as an earlier version wrote it
          }
          writer.addDocument(doc);
          if (i % 10 == 9) {
            writer.commit(); // several segments, some without the field at all
          }
        }
      }
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        ScoreDoc[] top = searcher.search(new MatchAllDocsQuery(), 100).scoreDocs;
        int[] docIds = new int[top.length];
        Double[] scores = new Double[top.length];
        for (int i = 0; i < top.length; i++) {
          docIds[top.length - 1 - i] = top[i].doc; // not in doc-id order
          scores[top.length - 1 - i] = (double) i;
        }
        List<MemoryVectorStore.Hit> hits = LuceneHits.read(searcher, "m", docIds, scores);

        assertThat(hits).hasSize(40);
        int fromStoredFields = 0;
        for (int i = 0; i < hits.size(); i++) {
          MemoryVectorStore.Hit hit = hits.get(i);
          org.springframework.ai.document.Document whole =
              LuceneRecords.toSpring(searcher.storedFields().document(docIds[i]), "m", scores[i]);
          assertThat(hit.id()).isEqualTo(whole.getId());
          assertThat(hit.score()).isEqualTo(scores[i]);
          for (String key : MemoryVectorStore.RANKING_KEYS) {
            assertThat(hit.metadata().get(key))
                .as("%s of %s", key, hit.id())
                .isEqualTo(whole.getMetadata().get(key));
          }
          if (hit.document() != null) {
            fromStoredFields++;
            assertThat(hit.document().getText()).isEqualTo(whole.getText());
          }
        }
        assertThat(fromStoredFields).isEqualTo(14); // i % 3 == 0 for i < 40
      }
    }
  }

  private static MemoryRecord record(int i) {
    Map<String, Object> extra = new HashMap<>();
    extra.put("role", "user");
    if (i % 2 == 0) {
      extra.put(MemoryRecord.PREVIOUS_TURN, "t" + (i - 1));
    }
    if (i % 4 == 0) {
      extra.put("importance", (long) i);
      extra.put("weight", i / 40.0);
    }
    return new MemoryRecord(
        "r" + i,
        "text number " + i,
        AgentId.of("a"),
        OwnerKey.of("user:1"),
        Scope.PERSONAL,
        MemoryStatus.ACTIVE,
        "RAW",
        "c",
        "t" + i,
        Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i),
        extra);
  }
}
