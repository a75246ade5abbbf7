package dev.memstack.builtin.store.files;

import static dev.memstack.builtin.store.files.IndexDocuments.F_KEY;
import static dev.memstack.builtin.store.files.IndexDocuments.F_KIND;
import static dev.memstack.builtin.store.files.IndexDocuments.KIND_CHUNK;

import dev.memstack.builtin.search.KeywordTexts;
import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.store.KeywordIndex;
import dev.memstack.builtin.store.KeywordQuery;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopScoreDocCollectorManager;

/**
 * One keyword search on an acquired searcher: the weighted merge of core files and the rest, the
 * cap on distinct files, and the conversion of Lucene hits to {@link KeywordHit}s with snippets.
 *
 * @param analyzer the index's analyzer, which places the snippets
 * @param snippetChars length of hit snippets
 */
record KeywordSearch(Analyzer analyzer, int snippetChars) {

  /**
   * The best hits for {@code queryTerms}, the analysed text of {@code query} (see {@link
   * KeywordIndex#search}); the first {@link KeywordQuery#snippets()} are placed at their first
   * match, the rest at their paragraph's start.
   */
  List<KeywordHit> best(
      IndexSearcher searcher, Set<String> queryTerms, Query inBuckets, KeywordQuery query)
      throws IOException {
    int limit = query.limit();
    int maxFiles = query.maxFiles();
    double weight = query.weight();
    Collection<String> excludedFiles = query.excludedFiles();
    int snippets = query.snippets();
    int fetch = limit <= maxFiles ? limit : Math.min(1000, limit * 4);
    Set<String> terms = KeywordQueries.rarest(searcher, queryTerms);
    if (terms.isEmpty()) {
      return List.of();
    }
    Query text = KeywordQueries.anyOf(terms);
    // Two searches, core files and the rest, so that each keeps Lucene's top-k pruning; a
    // core hit's score is then multiplied by the weight and the two lists merged, which gives
    // the exact top hits by weighted score.
    List<ScoreDoc> merged = new ArrayList<>();
    for (ScoreDoc hit :
        top(searcher, KeywordQueries.classed(text, inBuckets, true, excludedFiles), fetch)) {
      merged.add(new ScoreDoc(hit.doc, (float) (hit.score * weight)));
    }
    merged.addAll(
        List.of(
            top(searcher, KeywordQueries.classed(text, inBuckets, false, excludedFiles), fetch)));
    merged.sort(
        Comparator.comparingDouble((ScoreDoc d) -> d.score)
            .reversed()
            .thenComparingInt(d -> d.doc));
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    int[] order = merged.stream().mapToInt(d -> d.doc).toArray();
    Map<Integer, String[]> stored = new HashMap<>();
    Places places = new Places();
    List<KeywordHit> hits = new ArrayList<>();
    List<Integer> shownDocs = new ArrayList<>();
    Set<String> files = new HashSet<>();
    for (int i = 0; i < order.length && hits.size() < limit; i++) {
      ScoreDoc hit = merged.get(i);
      if (!stored.containsKey(hit.doc)) {
        // the next block of candidates, read in document order: the first limit of them suffice
        // unless the file cap passes some over
        int end = Math.min(order.length, i + limit);
        stored.putAll(IndexDocuments.storedHits(leaves, Arrays.copyOfRange(order, i, end)));
      }
      String[] fields = stored.get(hit.doc);
      String key = fields[0];
      if (!files.contains(key) && files.size() >= maxFiles) {
        continue;
      }
      files.add(key);
      // the first hits (the ones a request can show) carry their dense vector; the rest, when
      // shown, get it from the dense list or go without
      boolean shown = hits.size() < snippets;
      hits.add(toHit(fields, hit.score, shown ? terms : Set.of(), places));
      if (shown) {
        shownDocs.add(hit.doc);
      }
    }
    Map<Integer, float[]> vectors =
        IndexDocuments.storedVectors(
            leaves, shownDocs.stream().mapToInt(Integer::intValue).toArray());
    for (int i = 0; i < shownDocs.size(); i++) {
      hits.set(i, hits.get(i).withVector(vectors.get(shownDocs.get(i))));
    }
    return hits;
  }

  /**
   * The {@code limit} paragraphs nearest to {@code vector} in the dense view (see {@link
   * KeywordIndex#nearest}); a hit's score is its cosine similarity to the query. {@code queryTerms}
   * only place the snippet.
   */
  List<KeywordHit> nearest(
      IndexSearcher searcher,
      float[] vector,
      Set<String> queryTerms,
      Query inBuckets,
      int limit,
      Collection<String> excludedFiles)
      throws IOException {
    if (limit <= 0) {
      return List.of();
    }
    BooleanQuery.Builder filter =
        new BooleanQuery.Builder()
            .add(inBuckets, BooleanClause.Occur.FILTER)
            .add(new TermQuery(new Term(F_KIND, KIND_CHUNK)), BooleanClause.Occur.FILTER);
    for (String excluded : excludedFiles) {
      filter.add(new TermQuery(new Term(F_KEY, excluded)), BooleanClause.Occur.MUST_NOT);
    }
    double queryNorm = norm(vector);
    // exact search: a workspace's paragraphs are few enough to compare with every one, and an
    // exact list does not change with the order the paragraphs were indexed in
    PriorityQueue<Near> best =
        new PriorityQueue<>(
            Comparator.comparingDouble((Near d) -> d.score)
                .thenComparing(d -> d.doc, Comparator.reverseOrder()));
    IndexDocuments.forEachVector(
        searcher,
        filter.build(),
        (leaf, doc, candidate) -> {
          float cosine = IndexDocuments.cosine(vector, queryNorm, candidate);
          if (Float.isNaN(cosine)) {
            return; // another model's vector cannot be in this index; never compare it
          }
          // documents come in increasing order, so a tie with the worst kept one loses: only a
          // better one enters
          if (best.size() < limit || cosine > best.peek().score) {
            best.add(new Near(leaf.docBase + doc, cosine));
            if (best.size() > limit) {
              best.poll();
            }
          }
        });
    List<Near> ranked = new ArrayList<>(best);
    ranked.sort(
        Comparator.comparingDouble((Near d) -> d.score).reversed().thenComparingInt(d -> d.doc));
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    int[] docs = ranked.stream().mapToInt(Near::doc).toArray();
    Map<Integer, String[]> stored = IndexDocuments.storedHits(leaves, docs);
    Map<Integer, float[]> vectors = IndexDocuments.storedVectors(leaves, docs);
    Places places = new Places();
    List<KeywordHit> hits = new ArrayList<>(ranked.size());
    for (Near hit : ranked) {
      hits.add(
          toHit(stored.get(hit.doc), hit.score, Set.of(), places).withVector(vectors.get(hit.doc)));
    }
    return hits;
  }

  /** A candidate of the exact dense search: its document and cosine. */
  private record Near(int doc, float score) {}

  /**
   * The buckets and paths of one search's hits, each made (and checked) once: a search's hits
   * mostly share their bucket and a few daily notes.
   */
  private static final class Places {
    private final Map<String, WorkspacePath> paths = new HashMap<>();
    private String[] lastBucketFields;
    private Bucket lastBucket;

    Bucket bucket(String scope, String agent, String owner) {
      if (lastBucket != null
          && lastBucketFields[0].equals(scope)
          && lastBucketFields[1].equals(agent)
          && lastBucketFields[2].equals(owner)) {
        return lastBucket;
      }
      lastBucket =
          new Bucket(
              Scope.valueOf(scope),
              agent.isEmpty() ? null : AgentId.of(agent),
              owner.isEmpty() ? null : OwnerKey.of(owner));
      lastBucketFields = new String[] {scope, agent, owner};
      return lastBucket;
    }

    WorkspacePath path(String path) {
      return paths.computeIfAbsent(path, WorkspacePath::of);
    }
  }

  private static double norm(float[] vector) {
    double sum = 0;
    for (float value : vector) {
      sum += value * value;
    }
    return Math.sqrt(sum);
  }

  /** The best {@code n} hits; no total count is needed, so top-k pruning starts at once. */
  private static ScoreDoc[] top(IndexSearcher searcher, Query query, int n) throws IOException {
    return searcher.search(query, new TopScoreDocCollectorManager(n, null, 1)).scoreDocs;
  }

  private KeywordHit toHit(String[] stored, double score, Set<String> queryTerms, Places places)
      throws IOException {
    return KeywordTexts.hit(
        analyzer,
        snippetChars,
        places.bucket(stored[1], stored[2], stored[3]),
        places.path(stored[4]),
        Integer.parseInt(stored[5]),
        stored[7],
        score,
        Instant.ofEpochMilli(Long.parseLong(stored[6])),
        queryTerms);
  }
}
