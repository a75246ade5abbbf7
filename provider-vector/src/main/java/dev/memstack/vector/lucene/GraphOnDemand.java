package dev.memstack.vector.lucene;

import dev.memstack.support.DaemonThreads;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryVectorStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded store's HNSW graph, made when a search first needs it, as the pgvector store's
 * approximate index is. A store starts without one: each record's vector is kept as flat doc values
 * ({@link LuceneRecords#FLAT_VECTOR}) and every vector search is an exact scan ({@link
 * FilteredScan}), which for an owner's few hundred or thousand records is faster than a graph walk
 * and exact. Inserting into the graph and rebuilding it on every segment merge was most of the
 * store's CPU in a turn ingest, for a graph that owner-filtered searches never read.
 *
 * <p>The first search whose filter may match more than {@value FilteredScan#MAX_DOCS} records (or
 * has no filter) is still answered by an exact scan, and {@link #wanted} switches the live index
 * generation to graph mode: from then on every write adds its vector to the HNSW field, and a
 * thread of its own rewrites the records written before, a batch at a time under the write lock
 * (each batch re-reads them after a refresh, so a concurrent change or erasure is never undone).
 * Until no record without the graph field is left, searches stay exact ({@link #ready}). The mode
 * is kept in the commit user data ({@link IndexGeneration#graphed}); an index written before this
 * class existed has every vector in the graph already. A crash in the middle loses only the
 * uncommitted rewrites, and opening the store resumes them ({@link #resume}).
 */
final class GraphOnDemand {

  private static final Logger log = LoggerFactory.getLogger(GraphOnDemand.class);

  /**
   * Records rewritten under one hold of the write lock (about a second of graph inserts here; each
   * batch ends in a refresh, which flushes a segment, so smaller ones leave many segments to
   * merge).
   */
  static final int BATCH = 2048;

  private final LuceneIndex index;
  private final AtomicBoolean running = new AtomicBoolean();
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(DaemonThreads.named("memstack-vector-graph"));

  /**
   * Per segment reader (its deletions included): whether it holds a live record not in the graph.
   */
  private final Map<IndexReader.CacheKey, Boolean> flatSegments = new ConcurrentHashMap<>();

  GraphOnDemand(LuceneIndex index) {
    this.index = index;
  }

  /**
   * Whether a graph search over {@code searcher} sees every live record: {@code generation} is in
   * graph mode and no live record of the searcher lacks the graph field.
   */
  boolean ready(IndexSearcher searcher, IndexGeneration generation) throws IOException {
    if (!generation.graphed) {
      return false;
    }
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      if (holdsFlat(leaf.reader())) {
        return false;
      }
    }
    return true;
  }

  private boolean holdsFlat(LeafReader reader) throws IOException {
    IndexReader.CacheHelper helper = reader.getReaderCacheHelper();
    if (helper == null) {
      return anyLiveFlat(reader);
    }
    Boolean known = flatSegments.get(helper.getKey());
    if (known != null) {
      return known;
    }
    boolean found = anyLiveFlat(reader);
    if (flatSegments.putIfAbsent(helper.getKey(), found) == null) {
      helper.addClosedListener(flatSegments::remove);
    }
    return found;
  }

  private static boolean anyLiveFlat(LeafReader reader) throws IOException {
    BinaryDocValues flat = reader.getBinaryDocValues(LuceneRecords.FLAT_VECTOR);
    if (flat == null) {
      return false;
    }
    Bits live = reader.getLiveDocs();
    for (int doc = flat.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = flat.nextDoc()) {
      if (live == null || live.get(doc)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A search needed the graph of {@code generation}: switches it to graph mode (writes from now on
   * add their vectors to the graph) and starts rewriting the records written before, unless that is
   * done or under way.
   */
  void wanted(IndexGeneration generation) {
    start(generation);
  }

  /** After opening: finishes the rewrite a stop or crash interrupted. */
  void resume(IndexGeneration generation) {
    if (generation.graphed) {
      start(generation);
    }
  }

  private void start(IndexGeneration generation) {
    if (!running.compareAndSet(false, true)) {
      return;
    }
    try {
      worker.execute(() -> rewrite(generation));
    } catch (RejectedExecutionException e) {
      running.set(false); // closing
    }
  }

  private void rewrite(IndexGeneration generation) {
    long started = System.nanoTime();
    long rewritten = 0;
    try {
      index.write(
          ix -> {
            if (ix == generation && !ix.graphed) {
              ix.graphed = true;
              log.info(
                  "embedded vector store: a search matched more than {} records; building the"
                      + " HNSW graph in the background (searches stay exact until it is done)",
                  FilteredScan.MAX_DOCS);
            }
          },
          false);
      while (true) {
        int[] count = {0};
        index.write(ix -> count[0] = ix == generation ? rewriteBatch(ix) : -1, true);
        if (count[0] <= 0) {
          if (count[0] == 0 && rewritten > 0) {
            index.write(
                ix -> {
                  if (ix == generation) {
                    ix.commit();
                  }
                },
                false);
            index.mergeSmallSegmentsNow(); // one graph to walk, not one per flushed batch
            log.info(
                "embedded vector store: HNSW graph built; {} records added to it in {} s",
                rewritten,
                String.format("%.1f", (System.nanoTime() - started) / 1e9));
          }
          return;
        }
        rewritten += count[0];
      }
    } catch (IOException e) {
      log.warn("embedded vector store: merging the rewritten segments failed", e);
    } catch (RuntimeException e) {
      if (!index.isClosed()) { // closed meanwhile: the next open resumes
        log.warn("embedded vector store: building the HNSW graph failed; searches stay exact", e);
      }
    } finally {
      running.set(false);
    }
  }

  /**
   * Rewrites up to {@link #BATCH} live records that are not in the graph, with their vectors in it;
   * the caller holds the write lock. Returns how many.
   */
  private static int rewriteBatch(IndexGeneration ix) throws IOException {
    ix.searchers.maybeRefreshBlocking(); // every write so far, so that none is undone
    IndexSearcher searcher = ix.searchers.acquire();
    List<Document> rewritten = new ArrayList<>(BATCH);
    List<String> ids = new ArrayList<>(BATCH);
    try {
      for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
        LeafReader reader = leaf.reader();
        BinaryDocValues flat = reader.getBinaryDocValues(LuceneRecords.FLAT_VECTOR);
        if (flat == null) {
          continue;
        }
        Bits live = reader.getLiveDocs();
        StoredFields fields = reader.storedFields();
        for (int doc = flat.nextDoc();
            doc != DocIdSetIterator.NO_MORE_DOCS && rewritten.size() < BATCH;
            doc = flat.nextDoc()) {
          if (live != null && !live.get(doc)) {
            continue;
          }
          BytesRef bytes = flat.binaryValue();
          float[] vector = new float[ix.dimension];
          LuceneRecords.decodeVector(bytes, vector);
          Document stored = fields.document(doc);
          MemoryRecord record =
              MemoryRecord.fromDocument(LuceneRecords.toSpring(stored, ix.modelId, null));
          ids.add(record.id());
          rewritten.add(LuceneRecords.toLucene(record, vector, true));
        }
        if (rewritten.size() == BATCH) {
          break;
        }
      }
    } finally {
      ix.searchers.release(searcher);
    }
    for (int i = 0; i < rewritten.size(); i++) {
      ix.writer.updateDocument(new Term(MemoryVectorStore.ID, ids.get(i)), rewritten.get(i));
    }
    return rewritten.size();
  }

  /** Waits until no rewrite is under way (for tests and benchmarks); false on timeout. */
  boolean awaitIdle(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (running.get()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  void close() {
    worker.shutdownNow();
  }
}
