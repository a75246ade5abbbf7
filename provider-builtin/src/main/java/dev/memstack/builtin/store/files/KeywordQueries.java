package dev.memstack.builtin.store.files;

import static dev.memstack.builtin.store.files.IndexDocuments.CLASS_CORE;
import static dev.memstack.builtin.store.files.IndexDocuments.F_BUCKET;
import static dev.memstack.builtin.store.files.IndexDocuments.F_CLASS;
import static dev.memstack.builtin.store.files.IndexDocuments.F_KEY;
import static dev.memstack.builtin.store.files.IndexDocuments.F_KIND;
import static dev.memstack.builtin.store.files.IndexDocuments.F_TEXT;
import static dev.memstack.builtin.store.files.IndexDocuments.KIND_FILE;

import dev.memstack.builtin.search.KeywordTexts;
import dev.memstack.builtin.workspace.Bucket;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

/**
 * How a free-text query becomes Lucene queries: the analyzed terms (the first {@value
 * #MAX_QUERY_TERMS}), the {@value KeywordTexts#MAX_SCORED_TERMS} rarest of them OR-ed, filtered to
 * the caller's buckets and split into core files and the rest.
 */
final class KeywordQueries {

  private KeywordQueries() {}

  /** The query selecting every file record. */
  static Query files() {
    return new TermQuery(new Term(F_KIND, KIND_FILE));
  }

  /**
   * The query terms that occur in the index, rarest first, at most {@value
   * KeywordTexts#MAX_SCORED_TERMS}: rare words carry the meaning of a long message and are cheap to
   * score, while words found in most paragraphs add little to BM25 but cost the most to evaluate.
   */
  static Set<String> rarest(IndexSearcher searcher, Set<String> terms) throws IOException {
    record Frequency(String term, int docFreq) {}
    List<Frequency> found = new ArrayList<>();
    for (String term : terms) {
      int docFreq = searcher.getIndexReader().docFreq(new Term(F_TEXT, term));
      if (docFreq > 0) {
        found.add(new Frequency(term, docFreq));
      }
    }
    found.sort(Comparator.comparingInt(Frequency::docFreq));
    Set<String> rarest = new LinkedHashSet<>();
    for (Frequency frequency : found) {
      if (rarest.size() >= KeywordTexts.MAX_SCORED_TERMS) {
        break;
      }
      rarest.add(frequency.term());
    }
    return rarest;
  }

  /** The filter to the given buckets. */
  static Query inBuckets(Collection<Bucket> buckets) {
    BooleanQuery.Builder visible = new BooleanQuery.Builder();
    for (Bucket bucket : buckets) {
      visible.add(new TermQuery(new Term(F_BUCKET, bucket.key())), BooleanClause.Occur.SHOULD);
    }
    return visible.build();
  }

  /** Paragraphs holding any of {@code terms}. */
  static Query anyOf(Set<String> terms) {
    BooleanQuery.Builder words = new BooleanQuery.Builder();
    for (String term : terms) {
      words.add(new TermQuery(new Term(F_TEXT, term)), BooleanClause.Occur.SHOULD);
    }
    return words.build();
  }

  /** {@code text} in the buckets, in core files or in the others, without the excluded files. */
  static Query classed(
      Query text, Query inBuckets, boolean core, Collection<String> excludedFiles) {
    Query weightClass = new TermQuery(new Term(F_CLASS, CLASS_CORE));
    BooleanQuery.Builder query =
        new BooleanQuery.Builder()
            .add(text, BooleanClause.Occur.MUST)
            .add(inBuckets, BooleanClause.Occur.FILTER)
            .add(weightClass, core ? BooleanClause.Occur.FILTER : BooleanClause.Occur.MUST_NOT);
    for (String excluded : excludedFiles) {
      query.add(new TermQuery(new Term(F_KEY, excluded)), BooleanClause.Occur.MUST_NOT);
    }
    return query.build();
  }
}
