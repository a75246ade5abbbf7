package dev.memstack.vector.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.ai.vectorstore.filter.Filter;

@DisplayName("Owner-filtered searches of the embedded store, on documents of either layout")
class LuceneSearchLayoutTest {

  private static final int DIMENSION = 8;
  private static final AgentId AGENT = AgentId.of("a");
  private static final AgentId OTHER = AgentId.of("b");

  /**
   * An index where some documents were written as before the visibility keys and document doc
   * values existed: whole segments of them, and segments mixing both layouts.
   */
  private static ByteBuffersDirectory mixedIndex() throws Exception {
    return mixedIndex(false);
  }

  /**
   * {@link #mixedIndex()}, with every third record's vector as flat doc values instead of in the
   * graph when {@code someFlat} (a store whose graph is being built: {@link GraphOnDemand}).
   */
  private static ByteBuffersDirectory mixedIndex(boolean someFlat) throws Exception {
    ByteBuffersDirectory directory = new ByteBuffersDirectory();
    IndexWriterConfig config = new IndexWriterConfig();
    config.setMergePolicy(NoMergePolicy.INSTANCE);
    try (IndexWriter writer = new IndexWriter(directory, config)) {
      for (int i = 0; i < 600; i++) {
        Document doc =
            LuceneRecords.toLucene(
                record(i), StoreEmbedder.normalized(vector(i, 1)), !someFlat || i % 3 != 1);
        int segment = i / 100; // 0, 1: old; 2, 3: mixed; 4, 5: new
        if (segment < 2 || segment < 4 && i % 3 == 0) {
          doc.removeFields(VisibilityKeys.FIELD);
          doc.removeFields(DocumentValues.FIELD);
        }
        writer.addDocument(doc);
        if (i % 100 == 99) {
          writer.commit();
        }
      }
      writer.deleteDocuments(
          new Term(MemoryVectorStore.ID, "r7"), new Term(MemoryVectorStore.ID, "r450"));
      writer.commit();
    }
    return directory;
  }

  @Test
  @DisplayName("match the same records as the filter walked term by term, in every segment")
  void visibilityKeysMatchTheFilter() throws Exception {
    try (ByteBuffersDirectory directory = mixedIndex();
        DirectoryReader reader = DirectoryReader.open(directory)) {
      IndexSearcher searcher = new FilterCaching().newSearcher(reader, null);
      List<Boolean> keyed = new ArrayList<>();
      for (LeafReaderContext leaf : reader.leaves()) {
        keyed.add(VisibilityPostings.docs(leaf.reader(), List.of(VisibilityKeys.NONE)) != null);
      }
      assertThat(keyed).containsExactly(false, false, false, false, true, true);
      for (int owner = 0; owner < 6; owner++) {
        for (Filter.Expression filter : filters(owner)) {
          Query keys = LuceneFilterQueries.of(filter);
          Query walked = LuceneFilterQueries.INSTANCE.walk(filter);
          assertThat(keys.toString()).contains("visibility(");
          assertThat(ids(searcher, keys))
              .as("%s", filter)
              .isEqualTo(ids(searcher, walked))
              .isNotEmpty();
        }
      }
    }
  }

  @Test
  @DisplayName("score exactly as Lucene's kNN query and read the same documents")
  void exactScanEqualsTheKnnQuery() throws Exception {
    try (ByteBuffersDirectory directory = mixedIndex();
        DirectoryReader reader = DirectoryReader.open(directory)) {
      IndexSearcher searcher = new FilterCaching().newSearcher(reader, null);
      for (int q = 0; q < 20; q++) {
        float[] target = StoreEmbedder.normalized(vector(q, 2));
        for (Filter.Expression filter : filters(q % 6)) {
          Query query = LuceneFilterQueries.of(filter);
          ScoreDoc[] scanned = FilteredScan.top(searcher, query, target, 5, Long.MAX_VALUE).top();
          ScoreDoc[] knn =
              searcher.search(new KnnFloatVectorQuery(LuceneRecords.VECTOR, target, 1000, query), 5)
                  .scoreDocs;
          assertThat(scanned).hasSameSizeAs(knn);
          for (int i = 0; i < knn.length; i++) {
            assertThat(scanned[i].doc).isEqualTo(knn[i].doc);
            assertThat(scanned[i].score).isEqualTo(knn[i].score);
          }
        }
      }
      for (int doc = 0; doc < reader.maxDoc(); doc++) {
        org.springframework.ai.document.Document stored =
            LuceneRecords.toSpring(searcher.storedFields().document(doc), "m", 0.5);
        org.springframework.ai.document.Document read =
            DocumentValues.read(searcher, doc, "m", 0.5);
        assertThat(read.getId()).isEqualTo(stored.getId());
        assertThat(read.getText()).isEqualTo(stored.getText());
        assertThat(read.getScore()).isEqualTo(stored.getScore());
        assertThat(new ArrayList<>(read.getMetadata().entrySet()))
            .isEqualTo(new ArrayList<>(stored.getMetadata().entrySet()));
      }
    }
  }

  @Test
  @DisplayName("score a record's flat vector exactly as the graph field scores the same vector")
  void flatVectorsScoreAsTheGraphField() throws Exception {
    try (ByteBuffersDirectory graphed = mixedIndex(false);
        ByteBuffersDirectory partly = mixedIndex(true);
        DirectoryReader graphReader = DirectoryReader.open(graphed);
        DirectoryReader partlyReader = DirectoryReader.open(partly)) {
      IndexSearcher all = new FilterCaching().newSearcher(graphReader, null);
      IndexSearcher mixed = new FilterCaching().newSearcher(partlyReader, null);
      assertThat(
              partlyReader.leaves().get(0).reader().getBinaryDocValues(LuceneRecords.FLAT_VECTOR))
          .isNotNull();
      for (int q = 0; q < 20; q++) {
        float[] target = StoreEmbedder.normalized(vector(q, 2));
        List<Query> queries = new ArrayList<>();
        queries.add(null); // every record
        for (Filter.Expression filter : filters(q % 6)) {
          queries.add(LuceneFilterQueries.of(filter));
        }
        for (Query query : queries) {
          ScoreDoc[] expected = FilteredScan.top(all, query, target, 8, Long.MAX_VALUE).top();
          ScoreDoc[] scanned = FilteredScan.top(mixed, query, target, 8, Long.MAX_VALUE).top();
          assertThat(scanned).hasSameSizeAs(expected).isNotEmpty();
          for (int i = 0; i < expected.length; i++) {
            assertThat(scanned[i].doc).isEqualTo(expected[i].doc);
            assertThat(scanned[i].score).isEqualTo(expected[i].score);
          }
        }
        assertThat(FilteredScan.top(mixed, null, target, 8, 100).top())
            .as("more than the limit: left to the graph")
            .isNull();
      }
      for (int doc = 0; doc < partlyReader.maxDoc(); doc += 7) {
        assertThat(LuceneRecords.storedVector(mixed, doc))
            .isEqualTo(LuceneRecords.storedVector(all, doc));
      }
    }
  }

  private static List<Filter.Expression> filters(int owner) {
    OwnerKey key = OwnerKey.of("user:" + owner);
    return List.of(
        MemoryFilters.visibleTo(AGENT, key),
        MemoryFilters.visibleTo(OTHER, null),
        MemoryFilters.and(
            MemoryFilters.visibleTo(AGENT, key),
            MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name())),
        MemoryFilters.and(
            MemoryFilters.eq(MemoryVectorStore.TYPE, "FACT"),
            MemoryFilters.and(
                MemoryFilters.visibleTo(OTHER, key),
                MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name()))));
  }

  private static List<String> ids(IndexSearcher searcher, Query query) throws Exception {
    List<String> ids = new ArrayList<>();
    for (ScoreDoc hit : searcher.search(query, 10_000).scoreDocs) {
      ids.add(searcher.storedFields().document(hit.doc).get(MemoryVectorStore.ID));
    }
    ids.sort(null);
    return ids;
  }

  private static float[] vector(int i, int salt) {
    Random random = new Random(i * 31L + salt);
    float[] v = new float[DIMENSION];
    for (int d = 0; d < DIMENSION; d++) {
      v[d] = (float) random.nextGaussian();
    }
    return v;
  }

  private static MemoryRecord record(int i) {
    Scope scope = i % 17 == 0 ? Scope.TEAM : i % 29 == 0 ? Scope.GLOBAL : Scope.PERSONAL;
    Map<String, Object> extra = new HashMap<>();
    if (i % 2 == 0) {
      extra.put("role", "user");
      extra.put("importance", (long) i);
    }
    return new MemoryRecord(
        "r" + i,
        "text number " + i,
        i % 5 == 4 ? OTHER : AGENT,
        scope == Scope.PERSONAL ? OwnerKey.of("user:" + i % 6) : null,
        scope,
        i % 7 == 3 ? MemoryStatus.ARCHIVED : MemoryStatus.ACTIVE,
        i % 2 == 0 ? "FACT" : "RAW",
        "c" + i / 10,
        "t" + i,
        Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i),
        extra);
  }
}
