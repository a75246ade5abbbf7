package dev.memstack.vector.lucene;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.HitQueue;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.VectorScorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;

/**
 * The exact top k of a filter: every live document the filter matches is scored against the query
 * vector, no graph walk and no bit set of the filter. A document's vector is read from the HNSW
 * field's flat file with that field's own scorer (so the score is the one {@link
 * org.apache.lucene.search.KnnFloatVectorQuery} gives), or, for a document written before the store
 * had a graph ({@link GraphOnDemand}), from its flat doc values and scored by the same similarity
 * function on the same floats: the same score either way. Ties go to the lower document number, as
 * in Lucene's exact search. A filter that may hold more documents than the caller allows is left to
 * the graph.
 */
final class FilteredScan {

  /**
   * The most documents scanned exactly once the store has a graph: about 3 ms of dot products of
   * 384 dimensions here, less than a graph walk of a large index with its at least 100 candidates.
   */
  static final int MAX_DOCS = 8192;

  private FilteredScan() {}

  /**
   * A scan's answer: the best documents, best first, or null when the filter's cost estimate
   * exceeded the caller's limit (nothing was scored); and that estimate.
   */
  record Scan(ScoreDoc[] top, long cost) {}

  /**
   * The best {@code k} documents of {@code filter} (every document when null) by the similarity of
   * their vectors to {@code target}; {@link Scan#top()} is null when the filter's cost estimate
   * exceeds {@code maxDocs}.
   */
  static Scan top(IndexSearcher searcher, Query filter, float[] target, int k, long maxDocs)
      throws IOException {
    Query matches = filter == null ? new MatchAllDocsQuery() : filter;
    Weight weight =
        searcher.createWeight(searcher.rewrite(matches), ScoreMode.COMPLETE_NO_SCORES, 1f);
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    DocIdSetIterator[] docsOf = new DocIdSetIterator[leaves.size()];
    long cost = 0;
    for (int i = 0; i < docsOf.length; i++) {
      Scorer scorer = weight.scorer(leaves.get(i));
      if (scorer != null) {
        docsOf[i] = scorer.iterator();
        cost += docsOf[i].cost();
      }
    }
    if (cost > maxDocs) {
      return new Scan(null, cost);
    }
    HitQueue queue = new HitQueue(k, true);
    ScoreDoc weakest = queue.top();
    float[] flatVector = new float[target.length];
    for (int i = 0; i < docsOf.length; i++) {
      if (docsOf[i] == null) {
        continue;
      }
      LeafReaderContext leaf = leaves.get(i);
      LeafReader reader = leaf.reader();
      VectorScorer scorer = scorer(reader, target);
      DocIdSetIterator vectors = scorer == null ? null : scorer.iterator();
      BinaryDocValues flat = reader.getBinaryDocValues(LuceneRecords.FLAT_VECTOR);
      Bits live = reader.getLiveDocs();
      DocIdSetIterator docs = docsOf[i];
      for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
        if (live != null && !live.get(doc)) {
          continue;
        }
        float score;
        if (vectors != null
            && (vectors.docID() == doc || vectors.docID() < doc && vectors.advance(doc) == doc)) {
          score = scorer.score();
        } else if (flat != null && flat.advanceExact(doc)) {
          LuceneRecords.decodeVector(flat.binaryValue(), flatVector);
          score = LuceneRecords.SIMILARITY.compare(target, flatVector);
        } else {
          continue;
        }
        if (score > weakest.score) {
          weakest.score = score;
          weakest.doc = leaf.docBase + doc;
          weakest = queue.updateTop();
        }
      }
    }
    while (queue.size() > 0 && queue.top().score == Float.NEGATIVE_INFINITY) {
      queue.pop();
    }
    ScoreDoc[] best = new ScoreDoc[queue.size()];
    for (int i = best.length - 1; i >= 0; i--) {
      best[i] = queue.pop();
    }
    return new Scan(best, cost);
  }

  /** The scorer of the segment's HNSW-field vectors against {@code target}; null without any. */
  private static VectorScorer scorer(LeafReader reader, float[] target) throws IOException {
    FieldInfo info = reader.getFieldInfos().fieldInfo(LuceneRecords.VECTOR);
    FloatVectorValues values = reader.getFloatVectorValues(LuceneRecords.VECTOR);
    if (info == null || values == null) {
      return null;
    }
    if (info.getVectorDimension() != target.length) {
      throw new IllegalArgumentException(
          "vector query dimension: "
              + target.length
              + " differs from field dimension: "
              + info.getVectorDimension());
    }
    return values.scorer(target);
  }
}
