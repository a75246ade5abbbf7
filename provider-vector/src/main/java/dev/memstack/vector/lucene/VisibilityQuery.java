package dev.memstack.vector.lucene;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;

/**
 * A visibility filter answered from the {@value VisibilityKeys#FIELD} keys ({@link
 * VisibilityPostings}) in every segment where all documents have one, and by the original filter in
 * any other segment (documents written before the keys existed: a merge copies documents as they
 * are, so such a segment keeps the old way until its records are written again).
 */
final class VisibilityQuery extends Query {

  private final List<String> keys;
  private final Query fallback;

  private VisibilityQuery(List<String> keys, Query fallback) {
    this.keys = List.copyOf(keys);
    this.fallback = fallback;
  }

  /** Records with one of {@code keys}, or matching {@code fallback} where keys are missing. */
  static Query of(List<String> keys, Query fallback) {
    return new VisibilityQuery(keys, fallback);
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new Weight(this) {
      private Weight old;

      /** The fallback's weight, made when a segment first needs it. */
      private synchronized Weight old() throws IOException {
        if (old == null) {
          old = searcher.createWeight(searcher.rewrite(fallback), scoreMode, boost);
        }
        return old;
      }

      @Override
      public Scorer scorer(LeafReaderContext leaf) throws IOException {
        int[] docs = VisibilityPostings.docs(leaf.reader(), keys);
        if (docs == null) {
          return old().scorer(leaf);
        }
        if (docs.length == 0) {
          return null;
        }
        return new ConstantScoreScorer(this, boost, scoreMode, VisibilityPostings.iterator(docs));
      }

      @Override
      public Explanation explain(LeafReaderContext leaf, int doc) throws IOException {
        int[] docs = VisibilityPostings.docs(leaf.reader(), keys);
        if (docs == null) {
          return old().explain(leaf, doc);
        }
        return java.util.Arrays.binarySearch(docs, doc) >= 0
            ? Explanation.match(boost, "visibility key")
            : Explanation.noMatch("no visibility key of " + keys);
      }

      @Override
      public boolean isCacheable(LeafReaderContext leaf) {
        return false; // owner-specific: each search is another owner's
      }
    };
  }

  @Override
  public void visit(QueryVisitor visitor) {
    fallback.visit(visitor.getSubVisitor(Occur.SHOULD, this));
  }

  @Override
  public String toString(String field) {
    return "visibility(" + keys + " | " + fallback.toString(field) + ")";
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other)
        && keys.equals(((VisibilityQuery) other).keys)
        && fallback.equals(((VisibilityQuery) other).fallback);
  }

  @Override
  public int hashCode() {
    return Objects.hash(classHash(), keys, fallback);
  }
}
