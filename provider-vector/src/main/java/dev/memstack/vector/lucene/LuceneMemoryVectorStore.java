package dev.memstack.vector.lucene;

import dev.memstack.vector.store.DelegatingStore;
import dev.memstack.vector.store.MemoryHistory;
import dev.memstack.vector.store.ModelMismatchException;
import dev.memstack.vector.store.StoreEmbedder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.SearcherManager;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The embedded, durable memory store: an Apache Lucene 9.12 index in a directory of its own.
 * Vectors (unit length, dot product = cosine) live as flat doc values until a search first needs an
 * HNSW graph and in an HNSW field from then on ({@link GraphOnDemand}), the text in a BM25 field
 * (English analyzer with {@link #STOP_WORDS}: function words and "user"/"assistant"),
 * agent/owner/scope/status/type/conversation/turn in keyword fields and {@code created_at} in a
 * point + doc-values field, so filters are index lookups; the visibility filter is one keyword a
 * record ({@link VisibilityKeys}). A filtered vector search of at most {@value
 * FilteredScan#MAX_DOCS} records (an owner's) is an exact scan of them ({@link FilteredScan}), a
 * larger one a {@link KnnFloatVectorQuery} with the filter as a pre-filter and at least {@value
 * #MIN_CANDIDATES} candidates once the graph is built (an exact scan too until then), so an owner's
 * recall does not depend on other owners' records. A hit's document is read from doc values ({@link
 * DocumentValues}).
 *
 * <p>One {@link IndexWriter}, readers through a {@link SearcherManager} (near-real-time: a write is
 * searchable when its call returns). Durability: every {@code add} batch is appended to a {@link
 * Translog} and forced to disk before the call returns, and so is a metadata update (logged as an
 * upsert with the stored vector); deletes commit the index at once. The index is committed when the
 * log holds {@value IndexGeneration#COMMIT_EVERY_RECORDS} records or is older than {@value
 * IndexGeneration#COMMIT_EVERY_SECONDS} s, and on close; on open the log named in the last commit
 * is replayed. So an acknowledged write survives a crash. The embedding model id and dimension are
 * kept in the commit user data. Layout: {@code <root>/CURRENT} names the live index directory
 * ({@code <root>/index-<n>}, with its log {@code <root>/index-<n>.translog-<generation>}); {@link
 * #reembed()} builds {@code index-<n+1>} from the stored texts and switches {@code CURRENT}
 * atomically, so a crash mid-way leaves the old index in force. A second process opening the same
 * root fails on Lucene's write lock. Feedback counts live beside the index in {@code
 * <root>/feedback.jsonl} ({@link FeedbackCounts}), not in the documents.
 *
 * <p>This class is the public face; the work is split by concern: {@link LuceneIndex} (open,
 * re-embed, refresh, close, and the locks), {@link IndexGeneration} (one index directory with its
 * writer, searchers, commits and log), {@link LuceneRecords} and {@link LuceneAnalysis} (the
 * document schema and text analysis), {@link LuceneSearches} (the query side) and {@link
 * LuceneWrites} (the write side).
 */
public final class LuceneMemoryVectorStore implements DelegatingStore {

  /** The least number of HNSW candidates a vector search asks for (its ef). */
  public static final int MIN_CANDIDATES = 100;

  /**
   * Words that carry no content in questions and chat turns. Lucene's default English stop set is
   * tiny (33 words), so "what", "my", "I", "do" and "have" matched every turn and BM25 hits on them
   * outranked good vector hits; "user" and "assistant" are in every turn record's text.
   */
  public static final List<String> STOP_WORDS = LuceneAnalysis.STOP_WORDS;

  private final LuceneIndex index;
  private final LuceneSearches searches;
  private final LuceneWrites writes;
  private final Parts parts;
  private HistoryLog history;

  private LuceneMemoryVectorStore(Path root, StoreEmbedder embedder) {
    this.index = new LuceneIndex(root, embedder);
    this.searches = new LuceneSearches(index);
    this.writes = new LuceneWrites(index);
    this.parts = new Parts(searches, writes, new LuceneListing(index, searches::keywordQuery));
  }

  /**
   * Opens (or creates) the store under {@code root}.
   *
   * @param reembedOnMismatch rebuild the vectors when they come from another model, instead of
   *     failing
   * @param reembedKey the configuration key to name in a {@link ModelMismatchException}
   * @throws ModelMismatchException if the stored vectors come from another model and {@code
   *     reembedOnMismatch} is false
   * @throws IllegalStateException if the directory cannot be opened or is locked by another process
   */
  public static LuceneMemoryVectorStore open(
      Path root, StoreEmbedder embedder, boolean reembedOnMismatch, String reembedKey) {
    LuceneMemoryVectorStore store = new LuceneMemoryVectorStore(root, embedder);
    try {
      store.index.open(reembedOnMismatch, reembedKey);
      try {
        store.history = HistoryLog.open(root);
      } catch (java.io.IOException e) {
        throw new IllegalStateException(
            "embedded vector store: cannot open the history in " + root, e);
      }
      return store;
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * Merges the index's small segments now, as it does by itself once writes have gone quiet for
   * {@link dev.memstack.support.QuietMerges#QUIET} (for tests).
   */
  void mergeSmallSegments() throws java.io.IOException {
    index.mergeSmallSegmentsNow();
  }

  // ---------------------------------------------------------------- writes

  @Override
  public void add(List<Document> documents) {
    writes.add(documents, true);
  }

  /**
   * Durable like {@link #add(List)}; the documents become visible to searches within {@link
   * LuceneIndex#BATCH_VISIBILITY_MILLIS}, so a stream of batches refreshes the searcher about once
   * a second instead of once a batch (the refresh flushes a segment and reopens readers: measured
   * as more than half of the indexing CPU of turn ingest).
   */
  @Override
  public void addBatch(List<Document> documents) {
    writes.add(documents, false);
  }

  @Override
  public void refresh() {
    index.refresh();
  }

  @Override
  public Parts parts() {
    return parts;
  }

  /** Merges deleted documents out of the index files; searches wait for it (a merge). */
  @Override
  public void expungeDeleted() {
    index.expungeDeletes();
  }

  @Override
  public long reembed() {
    return index.reembed();
  }

  // ---------------------------------------------------------------- reads

  @Override
  public List<Document> similaritySearch(SearchRequest request) {
    float[] query = index.embedder().embedQuery(request.getQuery());
    return vectorSearch(
        query, request.getFilterExpression(), request.getTopK(), request.getSimilarityThreshold());
  }

  @Override
  public List<Hit> vectorHits(
      float[] queryVector, Filter.Expression filter, int topK, double threshold) {
    return searches.vectorHits(queryVector, filter, topK, threshold);
  }

  @Override
  public Map<String, Document> documents(List<Hit> hits) {
    return searches.documents(hits);
  }

  @Override
  public List<Hit> keywordHits(String query, Filter.Expression filter, int topK) {
    return searches.keywordHits(query, filter, topK);
  }

  @Override
  public String getName() {
    return "LuceneMemoryVectorStore";
  }

  /**
   * Waits until no HNSW graph is being built ({@link GraphOnDemand}), for benchmarks and tests.
   *
   * @return false if one still was after {@code timeout}
   */
  public boolean awaitGraph(long timeout, java.util.concurrent.TimeUnit unit)
      throws InterruptedException {
    return index.graph().awaitIdle(timeout, unit);
  }

  /** The index behind this store (for tests of this package). */
  LuceneIndex index() {
    return index;
  }

  /** The directory the store lives in. */
  public Path root() {
    return index.root();
  }

  /** The commit user data (model id, dimension, format), for diagnostics and tests. */
  public Map<String, String> commitUserData() {
    return index.commitUserData();
  }

  @Override
  public MemoryHistory history() {
    return history;
  }

  @Override
  public void close() {
    try {
      if (history != null) {
        history.close();
      }
    } catch (java.io.IOException e) {
      // the history's appends were forced to disk: nothing is lost by a failed close
    } finally {
      index.close();
    }
  }
}
