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
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
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
    List<KeywordHit> hits = new ArrayList<>();
    Set<String> files = new HashSet<>();
    for (ScoreDoc hit : merged) {
      if (hits.size() >= limit) {
        break;
      }
      String[] stored = IndexDocuments.storedHit(leaves, hit.doc);
      String key = stored[0];
      if (!files.contains(key) && files.size() >= maxFiles) {
        continue;
      }
      files.add(key);
      // the first hits (the ones a request can show) carry their dense vector; the rest, when
      // shown, get it from the dense list or go without
      boolean shown = hits.size() < snippets;
      KeywordHit keywordHit = toHit(stored, hit.score, shown ? terms : Set.of());
      hits.add(
          shown ? keywordHit.withVector(IndexDocuments.storedVector(leaves, hit.doc)) : keywordHit);
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
          if (candidate.length != vector.length) {
            return; // another model's vector cannot be in this index; never compare it
          }
          double dot = 0;
          double squares = 0;
          for (int i = 0; i < vector.length; i++) {
            dot += vector[i] * candidate[i];
            squares += candidate[i] * candidate[i];
          }
          double norms = queryNorm * Math.sqrt(squares);
          float cosine = norms == 0 ? 0f : (float) (dot / norms);
          // documents come in increasing order, so a tie with the worst kept one loses: only a
          // better one enters (and only then is the reused vector copied)
          if (best.size() < limit || cosine > best.peek().score) {
            best.add(new Near(leaf.docBase + doc, cosine, candidate.clone()));
            if (best.size() > limit) {
              best.poll();
            }
          }
        });
    List<Near> ranked = new ArrayList<>(best);
    ranked.sort(
        Comparator.comparingDouble((Near d) -> d.score).reversed().thenComparingInt(d -> d.doc));
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    List<KeywordHit> hits = new ArrayList<>(ranked.size());
    for (Near hit : ranked) {
      hits.add(
          toHit(IndexDocuments.storedHit(leaves, hit.doc), hit.score, Set.of())
              .withVector(hit.vector));
    }
    return hits;
  }

  /** A candidate of the exact dense search: its document, cosine and vector. */
  private record Near(int doc, float score, float[] vector) {}

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

  private KeywordHit toHit(String[] stored, double score, Set<String> queryTerms)
      throws IOException {
    Scope scope = Scope.valueOf(stored[1]);
    String agent = stored[2];
    String owner = stored[3];
    Bucket bucket =
        new Bucket(
            scope,
            agent.isEmpty() ? null : AgentId.of(agent),
            owner.isEmpty() ? null : OwnerKey.of(owner));
    return KeywordTexts.hit(
        analyzer,
        snippetChars,
        bucket,
        WorkspacePath.of(stored[4]),
        Integer.parseInt(stored[5]),
        stored[7],
        score,
        Instant.ofEpochMilli(Long.parseLong(stored[6])),
        queryTerms);
  }
}
