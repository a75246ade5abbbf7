package dev.memstack.vector.lucene;

import dev.memstack.vector.store.MemoryVectorStore;
import java.io.IOException;
import java.util.Set;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LRUQueryCache;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryCachingPolicy;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.UsageTrackingQueryCachingPolicy;

/**
 * Searchers whose filters keep the clauses every search repeats as cached bit sets. An
 * owner-filtered search ({@code visibleTo(agent, owner) AND status = ACTIVE}) is six term queries,
 * and a profile of it put a third of its time in looking those terms up in every segment's terms
 * dictionary and only 1 % in comparing vectors. Lucene's default cache never caches a term query
 * and skips segments under 10,000 documents, so every search looked every term up again. Here the
 * term queries on the few-valued fields ({@code agent}, {@code scope}, {@code status}) are cached
 * per segment once used, in a cache of the store's own (bounded: {@value #MAX_QUERIES} queries,
 * {@value #MAX_BYTES} bytes), on every segment; only the owner's term is looked up per search. A
 * segment's entries go with the segment; what a deletion hides is still hidden (Lucene applies the
 * live documents after the cache).
 */
final class FilterCaching extends SearcherFactory {

  static final int MAX_QUERIES = 256;
  static final long MAX_BYTES = 16L * 1024 * 1024;

  private static final Set<String> FEW_VALUED =
      Set.of(MemoryVectorStore.AGENT, MemoryVectorStore.SCOPE, MemoryVectorStore.STATUS);

  private final LRUQueryCache cache =
      new LRUQueryCache(MAX_QUERIES, MAX_BYTES, leaf -> true, Float.POSITIVE_INFINITY);

  private final QueryCachingPolicy policy =
      new QueryCachingPolicy() {
        private final UsageTrackingQueryCachingPolicy usage = new UsageTrackingQueryCachingPolicy();

        @Override
        public void onUse(Query query) {
          usage.onUse(query);
        }

        @Override
        public boolean shouldCache(Query query) throws IOException {
          if (query instanceof TermQuery term && FEW_VALUED.contains(term.getTerm().field())) {
            return true;
          }
          return usage.shouldCache(query);
        }
      };

  @Override
  public IndexSearcher newSearcher(IndexReader reader, IndexReader previousReader) {
    IndexSearcher searcher = new IndexSearcher(reader);
    searcher.setQueryCache(cache);
    searcher.setQueryCachingPolicy(policy);
    return searcher;
  }
}
