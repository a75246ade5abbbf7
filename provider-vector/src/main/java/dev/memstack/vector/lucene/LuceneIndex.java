package dev.memstack.vector.lucene;

import dev.memstack.support.DaemonThreads;
import dev.memstack.support.QuietMerges;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.ModelMismatchException;
import dev.memstack.vector.store.StoreEmbedder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.util.Bits;

/**
 * The lifecycle of the embedded store: opening the live index generation named by {@code CURRENT}
 * (with the model check and the feedback counts), re-embedding into the next generation, the
 * refresh of batch writes, and close. It owns the locks every operation goes through: {@link #read}
 * and {@link #write} hold the state lock shared (exclusive only to swap or close the index) and
 * writes are serialised by the write lock, one batch at a time.
 */
final class LuceneIndex {

  /** How long a write of {@code addBatch} may stay invisible to searches. */
  static final long BATCH_VISIBILITY_MILLIS = 1_000;

  private static final int REEMBED_BATCH = 256;

  private final Path root;
  private final StoreEmbedder embedder;
  private final Analyzer analyzer = LuceneAnalysis.newAnalyzer();

  /** Held shared by every operation, exclusively to swap or close the index. */
  private final ReentrantReadWriteLock state = new ReentrantReadWriteLock();

  /** Serialises writes (one batch at a time). */
  private final ReentrantLock writes = new ReentrantLock();

  private IndexGeneration index;
  private volatile boolean closed;

  /** Feedback counts per owner, beside the index; changed under {@link #writes}. */
  private FeedbackCounts feedback;

  /** Ids written by batch writes since the last refresh; guarded by {@link #writes}. */
  private final Set<String> invisible = ConcurrentHashMap.newKeySet();

  private final AtomicBoolean refreshScheduled = new AtomicBoolean();

  /** Merges the live generation's small segments once writes have gone quiet. */
  private final QuietMerges quiet = new QuietMerges("memstack-vector-merge", this::mergeQuietly);

  /** The HNSW graph, made when a search first needs it. */
  private final GraphOnDemand graph = new GraphOnDemand(this);

  private final ScheduledExecutorService refresher =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("memstack-vector-refresh"));

  LuceneIndex(Path root, StoreEmbedder embedder) {
    this.root = root;
    this.embedder = embedder;
  }

  Path root() {
    return root;
  }

  StoreEmbedder embedder() {
    return embedder;
  }

  Analyzer analyzer() {
    return analyzer;
  }

  /** The feedback counts; change them only inside a {@link #write}. */
  FeedbackCounts feedback() {
    return feedback;
  }

  // ---------------------------------------------------------------- open

  /**
   * Opens the index {@code CURRENT} names (creating the first one), re-embedding it or failing when
   * it holds another model's vectors, then the feedback counts.
   */
  void open(boolean reembedOnMismatch, String reembedKey) {
    openCurrent(reembedOnMismatch, reembedKey);
    openFeedback();
    quiet.check();
    graph.resume(index);
  }

  GraphOnDemand graph() {
    return graph;
  }

  private void openCurrent(boolean reembedOnMismatch, String reembedKey) {
    try {
      Files.createDirectories(root);
      String name = IndexFiles.readCurrent(root);
      index = IndexGeneration.open(root, name, analyzer, embedder);
      // only now, holding the write lock: leftovers of an interrupted re-embedding
      IndexFiles.deleteOtherIndexes(root, name);
      if (!IndexFiles.hasCurrent(root)) {
        IndexFiles.writeCurrent(root, name);
      }
      boolean sameModel =
          index.modelId.equals(embedder.modelId()) && index.dimension == embedder.dimension();
      if (!sameModel) {
        long documents = index.writer.getDocStats().numDocs;
        if (documents > 0 && !reembedOnMismatch) {
          throw new ModelMismatchException(
              "the embedded vector store at " + root,
              index.modelId,
              index.dimension,
              embedder.modelId(),
              embedder.dimension(),
              reembedKey);
        }
        // rebuild into a fresh directory: a Lucene vector field cannot change its dimension
        reembed();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("embedded vector store: cannot open " + root, e);
    }
  }

  /** Replays the feedback counts, dropping those of records that no longer exist. */
  private void openFeedback() {
    try {
      IndexSearcher searcher = index.searchers.acquire();
      try {
        feedback =
            FeedbackCounts.open(
                root,
                id -> {
                  try {
                    return searcher.count(new TermQuery(new Term(MemoryVectorStore.ID, id))) > 0;
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                });
      } finally {
        index.searchers.release(searcher);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "embedded vector store: cannot open the feedback counts in " + root, e);
    }
  }

  // ---------------------------------------------------------------- re-embedding

  /**
   * Builds {@code index-<n+1>} from the stored texts and switches {@code CURRENT} to it; a failure
   * deletes the new directory and leaves the old index in force.
   */
  long reembed() {
    return exclusively(
        "re-embedding failed",
        () -> {
          IndexGeneration old = index;
          int next = Integer.parseInt(old.name.substring("index-".length())) + 1;
          String name = "index-" + next;
          Path path = root.resolve(name);
          if (Files.exists(path)) {
            IndexFiles.deleteTree(path);
          }
          Files.deleteIfExists(Translog.path(root, name, 1));
          IndexGeneration fresh = IndexGeneration.open(root, name, analyzer, embedder);
          long count = 0;
          try {
            old.searchers.maybeRefreshBlocking();
            IndexSearcher searcher = old.searchers.acquire();
            try {
              List<Document> batch = new ArrayList<>(REEMBED_BATCH);
              for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
                Bits live = leaf.reader().getLiveDocs();
                StoredFields fields = leaf.reader().storedFields();
                for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
                  if (live != null && !live.get(doc)) {
                    continue;
                  }
                  batch.add(fields.document(doc));
                  if (batch.size() == REEMBED_BATCH) {
                    count += copyEmbedded(batch, fresh.writer, fresh.graphed, old.modelId);
                    batch.clear();
                  }
                }
              }
              count += copyEmbedded(batch, fresh.writer, fresh.graphed, old.modelId);
            } finally {
              old.searchers.release(searcher);
            }
            fresh.commit();
            fresh.searchers.maybeRefreshBlocking();
          } catch (IOException | RuntimeException e) {
            fresh.closeQuietly();
            IndexFiles.deleteTree(path);
            throw e;
          }
          IndexFiles.writeCurrent(root, name);
          index = fresh;
          old.closeQuietly();
          IndexFiles.deleteOtherIndexes(root, name);
          return count;
        });
  }

  /**
   * Expunges the deleted documents of the live generation ({@link IndexGeneration#expungeDeletes})
   * with the state lock held exclusively, so that no search keeps the old segments open.
   */
  void expungeDeletes() {
    // not beside a quiet merge: one begun before the deletes would keep their bytes in a segment
    // the expunge does not see
    quiet.lock().lock();
    try {
      exclusively(
          "expunging deletes failed",
          () -> {
            index.expungeDeletes();
            invisible.clear();
            return null;
          });
    } finally {
      quiet.lock().unlock();
    }
  }

  /** Merges the small segments now, as a quiet spell would (for tests, and after a graph build). */
  void mergeSmallSegmentsNow() throws IOException {
    quiet.runNow();
  }

  /**
   * Merges the live generation's small segments ({@link QuietMerges}) while searches and writes go
   * on, then commits and refreshes if it merged any. A generation swapped or closed meanwhile
   * aborts the merge (its writer is rolled back).
   */
  private void mergeQuietly() throws IOException {
    IndexGeneration current =
        read((searcher, ix) -> searcher.getIndexReader().leaves().size() > 1 ? ix : null);
    if (current == null || !QuietMerges.mergeSmallSegments(current.writer)) {
      return;
    }
    state.readLock().lock();
    try {
      if (closed || index != current) {
        return;
      }
      writes.lock();
      try {
        current.commit();
        current.searchers.maybeRefreshBlocking();
        invisible.clear();
        current.writer.deleteUnusedFiles();
      } finally {
        writes.unlock();
      }
    } finally {
      state.readLock().unlock();
    }
  }

  /**
   * Runs {@code action} with the state lock held exclusively and the writes held back, after
   * checking (before and after waiting for the locks) that the index is open.
   */
  private <T> T exclusively(String failure, ExclusiveAction<T> action) {
    checkOpen();
    state.writeLock().lock();
    writes.lock();
    try {
      checkOpen();
      return action.apply();
    } catch (IOException e) {
      throw new UncheckedIOException("embedded vector store: " + failure, e);
    } finally {
      writes.unlock();
      state.writeLock().unlock();
    }
  }

  @FunctionalInterface
  private interface ExclusiveAction<T> {
    T apply() throws IOException;
  }

  private long copyEmbedded(
      List<Document> batch, IndexWriter target, boolean graphed, String oldModel)
      throws IOException {
    if (batch.isEmpty()) {
      return 0;
    }
    List<MemoryRecord> records = new ArrayList<>(batch.size());
    for (Document stored : batch) {
      records.add(MemoryRecord.fromDocument(LuceneRecords.toSpring(stored, oldModel, null)));
    }
    List<float[]> vectors =
        embedder.embedPassages(records.stream().map(MemoryRecord::embeddingText).toList());
    for (int i = 0; i < records.size(); i++) {
      target.addDocument(LuceneRecords.toLucene(records.get(i), vectors.get(i), graphed));
    }
    return records.size();
  }

  // ---------------------------------------------------------------- reads and writes

  /** A change to the live index generation, run under the write lock. */
  interface WriteAction {
    void apply(IndexGeneration index) throws IOException;
  }

  /** A read of the live index generation through one acquired searcher. */
  interface ReadAction<T> {
    T apply(IndexSearcher searcher, IndexGeneration index) throws IOException;
  }

  /** Runs {@code action} and makes its changes visible to searches. */
  void write(WriteAction action) {
    write(action, true);
  }

  void write(WriteAction action, boolean refresh) {
    state.readLock().lock();
    try {
      checkOpen();
      writes.lock();
      try {
        action.apply(index);
        if (refresh) {
          index.searchers.maybeRefreshBlocking();
          invisible.clear();
        }
      } finally {
        writes.unlock();
      }
      quiet.wrote();
    } catch (IOException e) {
      throw new UncheckedIOException("embedded vector store: write failed", e);
    } finally {
      state.readLock().unlock();
    }
  }

  <T> T read(ReadAction<T> action) {
    state.readLock().lock();
    try {
      checkOpen();
      IndexGeneration current = index;
      SearcherManager searchers = current.searchers;
      IndexSearcher searcher = searchers.acquire();
      try {
        return action.apply(searcher, current);
      } finally {
        searchers.release(searcher);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("embedded vector store: read failed", e);
    } catch (AlreadyClosedException e) {
      throw new IllegalStateException("embedded vector store is closed", e);
    } finally {
      state.readLock().unlock();
    }
  }

  /** The commit user data (model id, dimension, format). */
  Map<String, String> commitUserData() {
    return read(
        (searcher, ix) -> {
          Map<String, String> out = new LinkedHashMap<>();
          for (Map.Entry<String, String> e : ix.writer.getLiveCommitData()) {
            out.put(e.getKey(), e.getValue());
          }
          return out;
        });
  }

  // ---------------------------------------------------------------- visibility of batch writes

  /** Notes {@code id} as written by a batch the searcher does not see yet; inside a write. */
  void markInvisible(String id) {
    invisible.add(id);
  }

  /** Whether {@code id} was written by a batch the searcher does not see yet. */
  boolean isInvisible(String id) {
    return invisible.contains(id);
  }

  /** Schedules a refresh within {@link #BATCH_VISIBILITY_MILLIS} unless one is pending. */
  void scheduleRefresh() {
    if (refreshScheduled.compareAndSet(false, true)) {
      try {
        refresher.schedule(this::scheduledRefresh, BATCH_VISIBILITY_MILLIS, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        refreshScheduled.set(false); // closing
      }
    }
  }

  private void scheduledRefresh() {
    refreshScheduled.set(false);
    try {
      refresh();
    } catch (RuntimeException e) {
      // closed meanwhile, or the writer failed: the next write reports it
    }
  }

  /** Makes every write so far visible to searches. */
  void refresh() {
    write(ix -> {}, true);
  }

  /** Refreshes the searcher when {@code id} was written by a batch it does not see yet. */
  void makeVisible(String id) {
    if (invisible.contains(id)) {
      refresh();
    }
  }

  // ---------------------------------------------------------------- close

  boolean isClosed() {
    return closed;
  }

  void checkOpen() {
    if (closed) {
      throw new IllegalStateException("embedded vector store is closed");
    }
  }

  /** Commits and closes the index, the feedback counts and the analyzer; idempotent. */
  void close() {
    state.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      refresher.shutdownNow();
      quiet.close();
      graph.close();
      if (index != null) {
        try {
          if (index.writer.isOpen()) {
            index.commit();
          }
        } catch (IOException | RuntimeException e) {
          // the write-ahead log still holds what the commit would have saved
        }
        index.closeQuietly();
        index = null;
      }
      if (feedback != null) {
        try {
          feedback.close();
        } catch (IOException | RuntimeException ignored) {
          // every acknowledged change is on disk already
        }
      }
      analyzer.close();
    } finally {
      state.writeLock().unlock();
    }
  }
}
