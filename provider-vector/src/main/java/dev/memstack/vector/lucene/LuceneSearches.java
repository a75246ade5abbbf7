package dev.memstack.vector.lucene;

import dev.memstack.support.LuceneTerms;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import dev.memstack.vector.store.StoreReads;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The query side of the embedded store: vector kNN search (a small filter scanned exactly by {@link
 * FilteredScan}, a larger one as the pre-filter of a {@link KnnFloatVectorQuery} with at least
 * {@link LuceneMemoryVectorStore#MIN_CANDIDATES} candidates once the store has its graph, and
 * exactly until then: {@link GraphOnDemand}), BM25 keyword search, lookups by id and the store info
 * (listing, counts and owners are {@link LuceneListing}'s). Every read goes through {@link
 * LuceneIndex#read}; filters become queries in {@link LuceneFilterQueries}.
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
          for (ScoreDoc hit : vectorTop(searcher, ix, queryVector, filter, topK, threshold)) {
            out.add(DocumentValues.read(searcher, hit.doc, ix.modelId, cosine(hit)));
          }
          return out;
        });
  }

  /** {@link #vectorSearch} without reading stored fields ({@link LuceneHits}). */
  List<MemoryVectorStore.Hit> vectorHits(
      float[] queryVector, Filter.Expression filter, int topK, double threshold) {
    return index.read(
        (searcher, ix) -> {
          List<ScoreDoc> top = vectorTop(searcher, ix, queryVector, filter, topK, threshold);
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
      IndexGeneration generation,
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
    boolean graph = index.graph().ready(searcher, generation);
    FilteredScan.Scan scan =
        FilteredScan.top(
            searcher, filterQuery, unit, topK, graph ? FilteredScan.MAX_DOCS : Long.MAX_VALUE);
    ScoreDoc[] hits = scan.top();
    if (hits == null) {
      int candidates = Math.max(topK, LuceneMemoryVectorStore.MIN_CANDIDATES);
      hits =
          searcher.search(
                  new KnnFloatVectorQuery(LuceneRecords.VECTOR, unit, candidates, filterQuery),
                  topK)
              .scoreDocs;
    } else if (!graph && scan.cost() > FilteredScan.MAX_DOCS) {
      index.graph().wanted(generation);
    }
    List<ScoreDoc> out = new ArrayList<>(hits.length);
    for (ScoreDoc hit : hits) {
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
          for (ScoreDoc hit : top.scoreDocs) {
            out.add(DocumentValues.read(searcher, hit.doc, ix.modelId, (double) hit.score));
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
  Query keywordQuery(String text) {
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
              DocumentValues.read(searcher, hits.scoreDocs[0].doc, ix.modelId, null));
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
          List<String> ids = new ArrayList<>();
          for (MemoryVectorStore.Hit hit : hits) {
            if (hit.locator() instanceof LuceneHits.Location at
                && at.reader() == searcher.getIndexReader()) {
              found.put(hit.id(), DocumentValues.read(searcher, at.docId(), ix.modelId, null));
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
                  found.put(id, DocumentValues.read(leaf.reader(), doc, ix.modelId, null)));
          return found;
        });
  }

  @Override
  public Set<String> existingIds(Collection<String> ids) {
    return index.read(
        (searcher, ix) -> {
          // a primary-key read per id, not a counting query: a count throws and catches an
          // exception per segment to end early, some 35,000 a 3,000-turn ingest
          Set<String> live = new HashSet<>();
          seekLive(searcher, ids, live, (id, leaf, doc) -> live.add(id));
          Set<String> found = new LinkedHashSet<>();
          for (String id : ids) {
            if (index.isInvisible(id) || live.contains(id)) {
              found.add(id);
            }
          }
          return found;
        });
  }

  @Override
  public MemoryVectorStore.StoreInfo info() {
    return index.read(
        (searcher, ix) ->
            new MemoryVectorStore.StoreInfo(
                ix.modelId, ix.dimension, searcher.getIndexReader().numDocs()));
  }
}
