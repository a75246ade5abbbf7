package dev.memstack.vector.lucene;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.HitQueue;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.VectorScorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;

/**
 * The exact top k of a small filter: every live document the filter matches is scored against the
 * query vector, with the scorer of the vector field itself (so the score is the one {@link
 * org.apache.lucene.search.KnnFloatVectorQuery} gives), no graph walk and no bit set of the filter.
 * Ties go to the lower document number, as in Lucene's exact search. A filter that may hold more
 * than {@value #MAX_DOCS} documents is left to the graph.
 */
final class FilteredScan {

  /**
   * The most documents scanned exactly: about 3 ms of dot products of 384 dimensions here, less
   * than a graph walk of a large index with its at least 100 candidates.
   */
  static final int MAX_DOCS = 8192;

  private FilteredScan() {}

  /**
   * The best {@code k} documents of {@code filter} by the similarity of {@code field} to {@code
   * target}, best first; {@code null} when the filter's cost estimate exceeds {@link #MAX_DOCS}.
   */
  static ScoreDoc[] top(IndexSearcher searcher, Query filter, String field, float[] target, int k)
      throws IOException {
    Weight weight =
        searcher.createWeight(searcher.rewrite(filter), ScoreMode.COMPLETE_NO_SCORES, 1f);
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    DocIdSetIterator[] matches = new DocIdSetIterator[leaves.size()];
    long cost = 0;
    for (int i = 0; i < matches.length; i++) {
      Scorer scorer = weight.scorer(leaves.get(i));
      if (scorer != null) {
        matches[i] = scorer.iterator();
        cost += matches[i].cost();
        if (cost > MAX_DOCS) {
          return null;
        }
      }
    }
    HitQueue queue = new HitQueue(k, true);
    ScoreDoc weakest = queue.top();
    for (int i = 0; i < matches.length; i++) {
      if (matches[i] == null) {
        continue;
      }
      LeafReaderContext leaf = leaves.get(i);
      VectorScorer scorer = scorer(leaf.reader(), field, target);
      if (scorer == null) {
        continue;
      }
      DocIdSetIterator vectors = scorer.iterator();
      Bits live = leaf.reader().getLiveDocs();
      DocIdSetIterator docs = matches[i];
      for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
        if (live != null && !live.get(doc)) {
          continue;
        }
        if (vectors.docID() < doc && vectors.advance(doc) != doc) {
          continue;
        }
        if (vectors.docID() != doc) {
          continue;
        }
        float score = scorer.score();
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
    return best;
  }

  /** The scorer of the segment's vectors against {@code target}; null without such vectors. */
  private static VectorScorer scorer(LeafReader reader, String field, float[] target)
      throws IOException {
    FieldInfo info = reader.getFieldInfos().fieldInfo(field);
    FloatVectorValues values = reader.getFloatVectorValues(field);
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
