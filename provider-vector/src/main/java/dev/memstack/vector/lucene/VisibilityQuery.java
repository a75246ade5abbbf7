package dev.memstack.vector.lucene;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.Weight;

/**
 * A visibility filter answered from the {@value VisibilityKeys#FIELD} keys in every segment where
 * all documents have one, and by the original filter in any other segment (documents written before
 * the keys existed, until merges have rewritten them all; a merge copies documents as they are, so
 * such a segment keeps the old way until the records are written again).
 */
final class VisibilityQuery extends Query {

  private final Query keys;
  private final Query fallback;

  private VisibilityQuery(Query keys, Query fallback) {
    this.keys = keys;
    this.fallback = fallback;
  }

  /** Records with one of {@code keys}, or matching {@code fallback} where keys are missing. */
  static Query of(List<String> keys, Query fallback) {
    BooleanQuery.Builder any = new BooleanQuery.Builder();
    for (String key : keys) {
      any.add(new TermQuery(new Term(VisibilityKeys.FIELD, key)), Occur.SHOULD);
    }
    return new VisibilityQuery(any.build(), fallback);
  }

  /** Whether every document of the segment has a visibility key. */
  static boolean keyed(LeafReaderContext leaf) throws IOException {
    Terms terms = leaf.reader().terms(VisibilityKeys.FIELD);
    return terms != null && terms.getDocCount() == leaf.reader().maxDoc();
  }

  @Override
  public Query rewrite(IndexSearcher searcher) throws IOException {
    Query k = keys.rewrite(searcher);
    Query f = fallback.rewrite(searcher);
    return k == keys && f == fallback ? this : new VisibilityQuery(k, f);
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost)
      throws IOException {
    Weight byKeys = searcher.createWeight(keys, scoreMode, boost);
    return new Weight(this) {
      private Weight old;

      private Weight pick(LeafReaderContext leaf) throws IOException {
        if (keyed(leaf)) {
          return byKeys;
        }
        synchronized (this) {
          if (old == null) {
            old = searcher.createWeight(fallback, scoreMode, boost);
          }
          return old;
        }
      }

      @Override
      public Scorer scorer(LeafReaderContext leaf) throws IOException {
        return pick(leaf).scorer(leaf);
      }

      @Override
      public Explanation explain(LeafReaderContext leaf, int doc) throws IOException {
        return pick(leaf).explain(leaf, doc);
      }

      @Override
      public boolean isCacheable(LeafReaderContext leaf) {
        return false; // owner-specific: each search is another owner's
      }
    };
  }

  @Override
  public void visit(QueryVisitor visitor) {
    QueryVisitor sub = visitor.getSubVisitor(Occur.SHOULD, this);
    keys.visit(sub);
    fallback.visit(sub);
  }

  @Override
  public String toString(String field) {
    return "visibility(" + keys.toString(field) + " | " + fallback.toString(field) + ")";
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
