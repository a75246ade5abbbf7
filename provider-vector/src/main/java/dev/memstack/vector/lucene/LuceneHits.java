package dev.memstack.vector.lucene;

import dev.memstack.vector.store.MemoryVectorStore;
import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.IndexSearcher;

/**
 * Search hits for ranking read from the {@value LuceneRecords#RANKING} doc values rather than the
 * stored fields: a stored document is decompressed whole, text and metadata, although ranking needs
 * only the id and a few keys. A document without those doc values (written by an earlier version;
 * segments merge old and new documents) is read from its stored fields, so any index works.
 */
final class LuceneHits {

  private LuceneHits() {}

  /**
   * Where a hit was found: its document in that reader. A later read through the same reader (no
   * refresh in between) loads it by doc id; otherwise by its id.
   */
  record Location(IndexReader reader, int docId) {}

  /**
   * The hits for the documents {@code docIds} with their {@code scores}, in the given order.
   * Doc-values iterators only move forward, so the documents are visited in doc-id order.
   */
  static List<MemoryVectorStore.Hit> read(
      IndexSearcher searcher, String modelId, int[] docIds, Double[] scores) throws IOException {
    Integer[] order = new Integer[docIds.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingInt(i -> docIds[i]));
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    MemoryVectorStore.Hit[] hits = new MemoryVectorStore.Hit[docIds.length];
    LeafReaderContext leaf = null;
    BinaryDocValues ranking = null;
    for (int i : order) {
      int docId = docIds[i];
      if (leaf == null || docId >= leaf.docBase + leaf.reader().maxDoc()) {
        leaf = leaves.get(ReaderUtil.subIndex(docId, leaves));
        ranking = leaf.reader().getBinaryDocValues(LuceneRecords.RANKING);
      }
      if (ranking != null && ranking.advanceExact(docId - leaf.docBase)) {
        hits[i] =
            RankingValues.decode(
                ranking.binaryValue(), scores[i], new Location(searcher.getIndexReader(), docId));
      } else {
        hits[i] =
            MemoryVectorStore.Hit.of(
                LuceneRecords.toSpring(
                    searcher.storedFields().document(docId), modelId, scores[i]));
      }
    }
    return List.of(hits);
  }
}
