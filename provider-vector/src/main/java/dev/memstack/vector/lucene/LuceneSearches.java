package dev.memstack.vector.lucene;

import dev.memstack.spi.Scope;
import dev.memstack.support.LuceneTerms;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import dev.memstack.vector.store.StoreReads;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.lucene.document.LongField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;
import org.apache.lucene.util.StringHelper;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The query side of the embedded store: vector kNN search (the filter as a pre-filter of a {@link
 * KnnFloatVectorQuery} with at least {@link LuceneMemoryVectorStore#MIN_CANDIDATES} candidates),
 * BM25 keyword search, lookups by id, listing newest first, counts and the store info. Every read
 * goes through {@link LuceneIndex#read}; filters become queries in {@link LuceneFilterQueries}.
 */
final class LuceneSearches implements StoreReads {

  private static final int MAX_KEYWORD_TERMS = 256;

  private final LuceneIndex index;

  LuceneSearches(LuceneIndex index) {
    this.index = index;
  }

  @Override
  public List<Document> vectorSearch(
      float[] queryVector, Filter.Expression filter, int topK, double threshold) {
    return index.read(
        (searcher, ix) -> {
          List<Document> out = new ArrayList<>();
          StoredFields fields = searcher.storedFields();
          for (ScoreDoc hit : vectorTop(searcher, queryVector, filter, topK, threshold)) {
            out.add(LuceneRecords.toSpring(fields.document(hit.doc), ix.modelId, cosine(hit)));
          }
          return out;
        });
  }

  /** {@link #vectorSearch} without reading stored fields ({@link LuceneHits}). */
  List<MemoryVectorStore.Hit> vectorHits(
      float[] queryVector, Filter.Expression filter, int topK, double threshold) {
    return index.read(
        (searcher, ix) -> {
          List<ScoreDoc> top = vectorTop(searcher, queryVector, filter, topK, threshold);
          Double[] scores = new Double[top.size()];
          for (int i = 0; i < scores.length; i++) {
            scores[i] = cosine(top.get(i));
          }
          return LuceneHits.read(searcher, ix.modelId, docIds(top), scores);
        });
  }

  /** The kNN hits within the filter whose cosine reaches the threshold, best first. */
  private List<ScoreDoc> vectorTop(
      IndexSearcher searcher,
      float[] queryVector,
      Filter.Expression filter,
      int topK,
      double threshold)
      throws IOException {
    StoreEmbedder embedder = index.embedder();
    if (queryVector.length != embedder.dimension()) {
      throw new IllegalArgumentException(
          "query vector has "
              + queryVector.length
              + " dimensions, the store holds "
              + embedder.dimension());
    }
    if (topK < 1) {
      return List.of();
    }
    float[] unit = StoreEmbedder.normalized(queryVector);
    Query filterQuery = filter == null ? null : LuceneFilterQueries.of(filter);
    int candidates = Math.max(topK, LuceneMemoryVectorStore.MIN_CANDIDATES);
    TopDocs top =
        searcher.search(
            new KnnFloatVectorQuery(LuceneRecords.VECTOR, unit, candidates, filterQuery), topK);
    List<ScoreDoc> out = new ArrayList<>(top.scoreDocs.length);
    for (ScoreDoc hit : top.scoreDocs) {
      if (cosine(hit) < threshold) {
        break;
      }
      out.add(hit);
    }
    return out;
  }

  /** DOT_PRODUCT scores are (1 + cos) / 2. */
  private static double cosine(ScoreDoc hit) {
    return 2.0 * hit.score - 1.0;
  }

  @Override
  public List<Document> keywordSearch(String query, Filter.Expression filter, int topK) {
    Query full = keywordQuery(query, filter, topK);
    if (full == null) {
      return List.of();
    }
    return index.read(
        (searcher, ix) -> {
          TopDocs top = searcher.search(full, topK);
          List<Document> out = new ArrayList<>();
          StoredFields fields = searcher.storedFields();
          for (ScoreDoc hit : top.scoreDocs) {
            out.add(
                LuceneRecords.toSpring(fields.document(hit.doc), ix.modelId, (double) hit.score));
          }
          return out;
        });
  }

  /** {@link #keywordSearch} without reading stored fields ({@link LuceneHits}). */
  List<MemoryVectorStore.Hit> keywordHits(String query, Filter.Expression filter, int topK) {
    Query full = keywordQuery(query, filter, topK);
    if (full == null) {
      return List.of();
    }
    return index.read(
        (searcher, ix) -> {
          List<ScoreDoc> top = List.of(searcher.search(full, topK).scoreDocs);
          Double[] scores = new Double[top.size()];
          for (int i = 0; i < scores.length; i++) {
            scores[i] = (double) top.get(i).score;
          }
          return LuceneHits.read(searcher, ix.modelId, docIds(top), scores);
        });
  }

  private static int[] docIds(List<ScoreDoc> hits) {
    int[] ids = new int[hits.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = hits.get(i).doc;
    }
    return ids;
  }

  /** The keyword query within the filter; null when the text has no terms or topK is below 1. */
  private Query keywordQuery(String query, Filter.Expression filter, int topK) {
    Query text = keywordQuery(query);
    if (text == null || topK < 1) {
      return null;
    }
    return filter == null
        ? text
        : new BooleanQuery.Builder()
            .add(text, Occur.MUST)
            .add(LuceneFilterQueries.of(filter), Occur.FILTER)
            .build();
  }

  /** The distinct analysed terms of {@code text} as optional clauses; null when there are none. */
  private Query keywordQuery(String text) {
    Set<String> terms =
        LuceneTerms.distinct(index.analyzer(), LuceneRecords.TEXT, text, MAX_KEYWORD_TERMS);
    if (terms.isEmpty()) {
      return null;
    }
    BooleanQuery.Builder builder = new BooleanQuery.Builder();
    for (String term : terms) {
      builder.add(new TermQuery(new Term(LuceneRecords.TEXT, term)), Occur.SHOULD);
    }
    return builder.build();
  }

  @Override
  public Optional<Document> get(String id) {
    index.makeVisible(id);
    return index.read(
        (searcher, ix) -> {
          TopDocs hits = searcher.search(new TermQuery(new Term(MemoryVectorStore.ID, id)), 1);
          if (hits.scoreDocs.length == 0) {
            return Optional.empty();
          }
          return Optional.of(
              LuceneRecords.toSpring(
                  searcher.storedFields().document(hits.scoreDocs[0].doc), ix.modelId, null));
        });
  }

  /** The stored unit vectors of the live records {@code ids}, by id. */
  @Override
  public Map<String, float[]> vectors(Collection<String> ids) {
    if (ids.isEmpty()) {
      return Map.of();
    }
    return index.read(
        (searcher, ix) -> {
          Map<String, float[]> found = new LinkedHashMap<>();
          seekLive(
              searcher,
              ids,
              found.keySet(),
              (id, leaf, doc) ->
                  found.put(id, LuceneRecords.storedVector(searcher, leaf.docBase + doc)));
          return found;
        });
  }

  /** Receives the live document of one id: its segment and the segment's document number. */
  private interface LiveDoc {
    void found(String id, LeafReaderContext leaf, int doc) throws IOException;
  }

  /**
   * Looks up the live document of each of {@code ids} not in {@code skip} by its id term, segment
   * by segment (a primary-key read: no query, scoring or sorting); {@code skip} may grow as
   * documents are found.
   */
  private static void seekLive(
      IndexSearcher searcher, Collection<String> ids, Set<String> skip, LiveDoc visitor)
      throws IOException {
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      Terms terms = leaf.reader().terms(MemoryVectorStore.ID);
      if (terms == null) {
        continue;
      }
      TermsEnum seek = terms.iterator();
      Bits live = leaf.reader().getLiveDocs();
      PostingsEnum postings = null;
      for (String id : ids) {
        if (skip.contains(id) || !seek.seekExact(new BytesRef(id))) {
          continue;
        }
        postings = seek.postings(postings, PostingsEnum.NONE);
        for (int doc = postings.nextDoc();
            doc != DocIdSetIterator.NO_MORE_DOCS;
            doc = postings.nextDoc()) {
          if (live == null || live.get(doc)) {
            visitor.found(id, leaf, doc);
            break;
          }
        }
      }
    }
  }

  /**
   * The documents of {@code hits}: by doc id when the searcher is still the one that found them
   * (the usual case: it changes on a refresh), else by a term lookup of the id per segment; no
   * query, scoring or sorting for what is a handful of primary-key reads.
   */
  Map<String, Document> documents(List<MemoryVectorStore.Hit> hits) {
    return index.read(
        (searcher, ix) -> {
          Map<String, Document> found = new LinkedHashMap<>();
          StoredFields stored = searcher.storedFields();
          List<String> ids = new ArrayList<>();
          for (MemoryVectorStore.Hit hit : hits) {
            if (hit.locator() instanceof LuceneHits.Location at
                && at.reader() == searcher.getIndexReader()) {
              found.put(
                  hit.id(), LuceneRecords.toSpring(stored.document(at.docId()), ix.modelId, null));
            } else {
              ids.add(hit.id());
            }
          }
          if (ids.isEmpty()) {
            return found;
          }
          seekLive(
              searcher,
              ids,
              found.keySet(),
              (id, leaf, doc) ->
                  found.put(
                      id,
                      LuceneRecords.toSpring(
                          leaf.reader().storedFields().document(doc), ix.modelId, null)));
          return found;
        });
  }

  @Override
  public Set<String> existingIds(Collection<String> ids) {
    return index.read(
        (searcher, ix) -> {
          Set<String> found = new LinkedHashSet<>();
          for (String id : ids) {
            if (index.isInvisible(id)
                || searcher.count(new TermQuery(new Term(MemoryVectorStore.ID, id))) > 0) {
              found.add(id);
            }
          }
          return found;
        });
  }

  @Override
  public List<Document> list(Filter.Expression filter, int offset, int limit) {
    if (offset < 0 || limit < 0) {
      throw new IllegalArgumentException("offset and limit must not be negative");
    }
    if (limit == 0) {
      return List.of();
    }
    Query query = LuceneFilterQueries.of(filter);
    Sort newestFirst =
        new Sort(
            LongField.newSortField(
                MemoryVectorStore.CREATED_AT, true, SortedNumericSelector.Type.MAX),
            new SortField(MemoryVectorStore.ID, SortField.Type.STRING));
    return index.read(
        (searcher, ix) -> {
          int want = (int) Math.min(Integer.MAX_VALUE, (long) offset + limit);
          TopDocs top = searcher.search(query, want, newestFirst);
          List<Document> out = new ArrayList<>();
          StoredFields fields = searcher.storedFields();
          for (int i = offset; i < top.scoreDocs.length; i++) {
            out.add(
                LuceneRecords.toSpring(fields.document(top.scoreDocs[i].doc), ix.modelId, null));
          }
          return out;
        });
  }

  @Override
  public long count(Filter.Expression filter) {
    Query query = filter == null ? new MatchAllDocsQuery() : LuceneFilterQueries.of(filter);
    return index.read((searcher, ix) -> (long) searcher.count(query));
  }

  /**
   * Per segment: the agent's live PERSONAL records as a bit set (the cached term queries of {@link
   * FilterCaching}), then the owner field's terms from {@code prefix} on, each term's postings
   * counted within that set; the counts of all segments merged in term (UTF-8 byte, so code point)
   * order. No stored field is read.
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
    BytesRef start = prefix == null ? null : new BytesRef(prefix);
    String part = contains == null ? null : contains.toLowerCase(Locale.ROOT);
    return index.read(
        (searcher, ix) -> {
          Weight weight =
              searcher.createWeight(searcher.rewrite(personal), ScoreMode.COMPLETE_NO_SCORES, 1f);
          TreeMap<BytesRef, long[]> counts = new TreeMap<>();
          for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            FixedBitSet records = matching(weight, leaf);
            Terms terms = leaf.reader().terms(MemoryVectorStore.OWNER);
            if (records == null || terms == null) {
              continue;
            }
            TermsEnum owners = terms.iterator();
            BytesRef term =
                start == null
                    ? owners.next()
                    : owners.seekCeil(start) == TermsEnum.SeekStatus.END ? null : owners.term();
            PostingsEnum postings = null;
            for (; term != null; term = owners.next()) {
              if (start != null && !StringHelper.startsWith(term, start)) {
                break;
              }
              if (part != null && !term.utf8ToString().toLowerCase(Locale.ROOT).contains(part)) {
                continue;
              }
              postings = owners.postings(postings, PostingsEnum.NONE);
              long n = 0;
              for (int doc = postings.nextDoc();
                  doc != DocIdSetIterator.NO_MORE_DOCS;
                  doc = postings.nextDoc()) {
                if (records.get(doc)) {
                  n++;
                }
              }
              if (n > 0) {
                counts.computeIfAbsent(BytesRef.deepCopyOf(term), k -> new long[1])[0] += n;
              }
            }
          }
          List<MemoryVectorStore.OwnerCount> page = new ArrayList<>();
          int skipped = 0;
          for (Map.Entry<BytesRef, long[]> owner : counts.entrySet()) {
            if (page.size() == limit) {
              break;
            }
            if (skipped++ < offset) {
              continue;
            }
            page.add(
                new MemoryVectorStore.OwnerCount(
                    owner.getKey().utf8ToString(), owner.getValue()[0]));
          }
          return new MemoryVectorStore.OwnerPage(counts.size(), page);
        });
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

  @Override
  public MemoryVectorStore.StoreInfo info() {
    return index.read(
        (searcher, ix) ->
            new MemoryVectorStore.StoreInfo(
                ix.modelId, ix.dimension, searcher.getIndexReader().numDocs()));
  }
}
