package dev.memstack.vector.lucene;

import dev.memstack.spi.Scope;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreListing;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;
import org.apache.lucene.util.StringHelper;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The administration reads of the embedded store: pages newest first ({@link NewestFirst}), counts,
 * counts by the values of a keyword field and the owners of an agent, each within a filter and,
 * where asked, the records that hold a word of a text (the keyword search's analysis; every match,
 * unranked). Counts by value are read from the field's terms and postings within the matches, so no
 * record is loaded. Every read goes through {@link LuceneIndex#read}.
 */
final class LuceneListing implements StoreListing {

  private final LuceneIndex index;

  /** The keyword query of a text, or {@code null} when it has no searchable word. */
  private final Function<String, Query> words;

  LuceneListing(LuceneIndex index, Function<String, Query> words) {
    this.index = index;
    this.words = words;
  }

  /** See {@link MemoryVectorStore#list(Filter.Expression, String, int, int)}. */
  @Override
  public List<Document> list(Filter.Expression filter, String text, int offset, int limit) {
    if (offset < 0 || limit < 0) {
      throw new IllegalArgumentException("offset and limit must not be negative");
    }
    Query query = query(filter, text);
    if (limit == 0 || query == null) {
      return List.of();
    }
    return index.read(
        (searcher, ix) -> {
          List<Document> out = new ArrayList<>();
          StoredFields fields = searcher.storedFields();
          for (int doc : NewestFirst.page(searcher, query, offset, limit)) {
            out.add(LuceneRecords.toSpring(fields.document(doc), ix.modelId, null));
          }
          return out;
        });
  }

  /** See {@link MemoryVectorStore#count(Filter.Expression, String)}. */
  @Override
  public long count(Filter.Expression filter, String text) {
    Query query = query(filter, text);
    return query == null ? 0 : index.read((searcher, ix) -> (long) searcher.count(query));
  }

  /** See {@link MemoryVectorStore#countBy}. */
  @Override
  public Map<String, Long> countBy(String key, Filter.Expression filter, String text) {
    if (!LuceneRecords.STRING_KEYS.contains(key)) {
      throw new IllegalArgumentException(
          "cannot count by " + key + "; use one of " + LuceneRecords.STRING_KEYS);
    }
    Query query = query(filter, text);
    Map<String, Long> counts = new TreeMap<>();
    if (query != null) {
      index
          .read((searcher, ix) -> termCounts(searcher, query, key, null, term -> true))
          .forEach((value, n) -> counts.put(value.utf8ToString(), n[0]));
    }
    return counts;
  }

  /**
   * See {@link MemoryVectorStore#owners}: the owner field's terms from {@code prefix} on, each
   * counted within the agent's personal records, in term (UTF-8 byte, so code point) order.
   */
  @Override
  public MemoryVectorStore.OwnerPage owners(
      String agent, String prefix, String contains, int offset, int limit) {
    if (offset < 0 || limit < 0) {
      throw new IllegalArgumentException("offset and limit must not be negative");
    }
    Query personal =
        LuceneFilterQueries.of(
            MemoryFilters.and(
                MemoryFilters.eq(MemoryVectorStore.AGENT, agent),
                MemoryFilters.eq(MemoryVectorStore.SCOPE, Scope.PERSONAL.name())));
    String part = contains == null ? null : contains.toLowerCase(Locale.ROOT);
    TreeMap<BytesRef, long[]> counts =
        index.read(
            (searcher, ix) ->
                termCounts(
                    searcher,
                    personal,
                    MemoryVectorStore.OWNER,
                    prefix == null ? null : new BytesRef(prefix),
                    term ->
                        part == null
                            || term.utf8ToString().toLowerCase(Locale.ROOT).contains(part)));
    List<MemoryVectorStore.OwnerCount> page = new ArrayList<>();
    counts.entrySet().stream()
        .skip(offset)
        .limit(limit)
        .forEach(
            e ->
                page.add(
                    new MemoryVectorStore.OwnerCount(e.getKey().utf8ToString(), e.getValue()[0])));
    return new MemoryVectorStore.OwnerPage(counts.size(), page);
  }

  /**
   * The filter narrowed to the records that hold a word of {@code text} ({@code null}: not
   * narrowed); {@code null} when the text has no searchable word (nothing matches).
   */
  private Query query(Filter.Expression filter, String text) {
    Query filtered = filter == null ? new MatchAllDocsQuery() : LuceneFilterQueries.of(filter);
    if (text == null) {
      return filtered;
    }
    Query holding = words.apply(text);
    return holding == null
        ? null
        : new BooleanQuery.Builder().add(filtered, Occur.FILTER).add(holding, Occur.FILTER).build();
  }

  /**
   * Per segment: the live documents {@code query} matches as a bit set (its term queries on the
   * few-valued fields are cached, {@link FilterCaching}), then the terms of {@code field} from
   * {@code start} on (while they start with it) that {@code keep} accepts, each term's postings
   * counted within that set; the counts of every segment merged by term. No stored field is read.
   */
  private static TreeMap<BytesRef, long[]> termCounts(
      IndexSearcher searcher, Query query, String field, BytesRef start, Predicate<BytesRef> keep)
      throws IOException {
    Weight weight =
        searcher.createWeight(searcher.rewrite(query), ScoreMode.COMPLETE_NO_SCORES, 1f);
    TreeMap<BytesRef, long[]> counts = new TreeMap<>();
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      FixedBitSet matches = matching(weight, leaf);
      Terms terms = leaf.reader().terms(field);
      if (matches == null || terms == null) {
        continue;
      }
      TermsEnum values = terms.iterator();
      BytesRef term =
          start == null
              ? values.next()
              : values.seekCeil(start) == TermsEnum.SeekStatus.END ? null : values.term();
      PostingsEnum postings = null;
      for (; term != null; term = values.next()) {
        if (start != null && !StringHelper.startsWith(term, start)) {
          break;
        }
        if (!keep.test(term)) {
          continue;
        }
        postings = values.postings(postings, PostingsEnum.NONE);
        long n = 0;
        for (int doc = postings.nextDoc();
            doc != DocIdSetIterator.NO_MORE_DOCS;
            doc = postings.nextDoc()) {
          if (matches.get(doc)) {
            n++;
          }
        }
        if (n > 0) {
          counts.computeIfAbsent(BytesRef.deepCopyOf(term), k -> new long[1])[0] += n;
        }
      }
    }
    return counts;
  }

  /** The live documents of {@code leaf} that {@code weight} matches, or {@code null} for none. */
  private static FixedBitSet matching(Weight weight, LeafReaderContext leaf) throws IOException {
    Scorer scorer = weight.scorer(leaf);
    if (scorer == null) {
      return null;
    }
    Bits live = leaf.reader().getLiveDocs();
    FixedBitSet docs = new FixedBitSet(leaf.reader().maxDoc());
    DocIdSetIterator it = scorer.iterator();
    for (int doc = it.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
      if (live == null || live.get(doc)) {
        docs.set(doc);
      }
    }
    return docs;
  }
}
