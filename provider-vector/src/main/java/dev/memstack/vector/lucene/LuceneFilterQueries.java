package dev.memstack.vector.lucene;

import dev.memstack.vector.store.FilterWalker;
import dev.memstack.vector.store.MemoryVectorStore;
import java.util.List;
import org.apache.lucene.document.LongField;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;
import org.springframework.ai.vectorstore.filter.Filter;

/** Spring AI filter expressions as Lucene queries over the fields of {@link LuceneRecords}. */
final class LuceneFilterQueries extends FilterWalker<Query> {

  static final LuceneFilterQueries INSTANCE = new LuceneFilterQueries();

  /**
   * The query for {@code filter}; all documents for {@code null}. A {@link
   * dev.memstack.vector.store.MemoryFilters#visibleTo} filter, alone or as a side of the top-level
   * conjunctions, becomes a lookup of its {@link VisibilityKeys} ({@link VisibilityQuery}).
   */
  static Query of(Filter.Expression filter) {
    return filter == null ? new MatchAllDocsQuery() : INSTANCE.keyed(filter);
  }

  private Query keyed(Filter.Expression filter) {
    if (filter.type() == Filter.ExpressionType.AND
        && filter.left() instanceof Filter.Expression left
        && filter.right() instanceof Filter.Expression right) {
      return and(keyed(left), keyed(right));
    }
    List<String> keys = VisibilityKeys.keysOf(filter);
    return keys == null ? walk(filter) : VisibilityQuery.of(keys, walk(filter));
  }

  @Override
  protected Query anyOf(String key, List<String> values) {
    if (values.size() == 1) {
      return new TermQuery(new Term(key, values.get(0)));
    }
    return new TermInSetQuery(key, values.stream().map(BytesRef::new).toList());
  }

  @Override
  protected Query createdBetween(long fromMillis, long toMillis) {
    if (fromMillis > toMillis) {
      return new MatchNoDocsQuery("empty created_at range");
    }
    return LongField.newRangeQuery(MemoryVectorStore.CREATED_AT, fromMillis, toMillis);
  }

  @Override
  protected Query isNull(String key) {
    if (key.equals(MemoryVectorStore.ID)) {
      return new MatchNoDocsQuery("every record has an id");
    }
    return not(new TermQuery(new Term(LuceneRecords.HAS, key)));
  }

  @Override
  protected Query and(Query left, Query right) {
    return new BooleanQuery.Builder().add(left, Occur.FILTER).add(right, Occur.FILTER).build();
  }

  @Override
  protected Query or(Query left, Query right) {
    return new BooleanQuery.Builder().add(left, Occur.SHOULD).add(right, Occur.SHOULD).build();
  }

  @Override
  protected Query not(Query inner) {
    return new BooleanQuery.Builder()
        .add(new MatchAllDocsQuery(), Occur.FILTER)
        .add(inner, Occur.MUST_NOT)
        .build();
  }
}
