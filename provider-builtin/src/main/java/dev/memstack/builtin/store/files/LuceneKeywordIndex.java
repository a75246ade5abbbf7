package dev.memstack.builtin.store.files;

import dev.memstack.builtin.search.KeywordTexts;
import dev.memstack.builtin.search.Paragraphs;
import dev.memstack.builtin.search.WorkspaceAnalyzer;
import dev.memstack.builtin.store.Change;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.store.KeywordIndex;
import dev.memstack.builtin.store.KeywordQuery;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.store.files.RecoveringWriter.Delete;
import dev.memstack.builtin.store.files.RecoveringWriter.Update;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.Embedder;
import dev.memstack.support.QuietMerges;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.AlreadyClosedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyword index in Apache Lucene, stored under one directory. Each file is indexed as
 * paragraphs ({@link Paragraphs}: runs of non-blank lines, at most {@value
 * Paragraphs#CHUNK_MAX_LINES} lines or {@value Paragraphs#CHUNK_MAX_CHARS} characters) with {@link
 * WorkspaceAnalyzer}, plus one record of its size and modification time ({@link IndexDocuments}),
 * so that a restart can tell which files changed behind the index's back. Scoring is Lucene's BM25,
 * multiplied at query time by the weight for core files (searched apart from the other files and
 * merged, {@link KeywordSearch}); a query is the OR of its {@value KeywordTexts#MAX_SCORED_TERMS}
 * rarest terms (of its first {@value KeywordTexts#MAX_QUERY_TERMS}), filtered to the caller's
 * buckets ({@link KeywordQueries}).
 *
 * <p>Changes are searchable after {@link #refresh()} (a near-real-time reopen), which the workspace
 * calls once per committed write; commits to disk happen at most once per commit interval and on
 * close. A stored index that cannot be opened or was built by another analyzer version is thrown
 * away and rebuilt from the files by the caller.
 *
 * <p>Interrupts: the host does not interrupt provider calls (see the SPI's {@code MemoryProvider}),
 * but a calling thread may still be interrupted by someone else (an executor shut down at once, a
 * test), and an interrupt that lands while a thread writes through a {@code FileChannel} closes the
 * channel; inside Lucene that closes the {@code IndexWriter} for good (or invalidates its write
 * lock). So every writer operation (update, delete, near-real-time reopen, commit, close) runs on
 * one dedicated {@link IndexThread} that nobody interrupts, and the calling thread waits for it
 * uninterruptibly (keeping its interrupt flag); searchers are given back there too, since the last
 * release of an old reader deletes files. Searches read memory-mapped files, which interrupts
 * cannot break. Should the writer still fail for good (a full disk, say), it is reopened from the
 * last commit and the changes made since are applied again ({@link RecoveringWriter}), so the index
 * recovers without a restart.
 *
 * <p>One writer per directory: an index whose write lock another writer holds (another provider
 * instance on the same data directory, e.g. the previous instance of a plugin reload that is still
 * closing) is waited for, up to {@link #DEFAULT_LOCK_WAIT}, and then refused with a message that
 * says so. It is never mistaken for a broken index, which would be deleted and rebuilt under the
 * other writer's feet.
 */
public final class LuceneKeywordIndex implements KeywordIndex {

  private static final Logger log = LoggerFactory.getLogger(LuceneKeywordIndex.class);

  /** How long opening waits for another writer to release the index. */
  public static final Duration DEFAULT_LOCK_WAIT = Duration.ofSeconds(10);

  /** How long a close waits for the index thread before it gives up (and logs). */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private final Analyzer analyzer = new WorkspaceAnalyzer();
  private final Path path;
  private final IndexThread indexThread;
  private final RecoveringWriter writer;
  private final KeywordSearch search;
  private final DenseView dense;
  private final AtomicBoolean closing = new AtomicBoolean();
  private final QuietMerges quiet;

  /**
   * Opens (or creates) the index in {@code dir}.
   *
   * @param snippetChars length of hit snippets
   * @param commitInterval least time between two commits caused by writes
   */
  public LuceneKeywordIndex(Path dir, int snippetChars, Duration commitInterval) {
    this(dir, snippetChars, commitInterval, DEFAULT_LOCK_WAIT, null);
  }

  /**
   * Opens (or creates) the index in {@code dir} with the dense view: every paragraph is also
   * embedded by {@code embedder} ({@link DenseView}) and {@link #nearest} searches the vectors. An
   * index built without the view, or with another model, is emptied and rebuilt from the files by
   * the caller.
   *
   * @param embedder the host's model, or {@code null} for the keyword index alone
   */
  public LuceneKeywordIndex(
      Path dir, int snippetChars, Duration commitInterval, Embedder embedder) {
    this(dir, snippetChars, commitInterval, DEFAULT_LOCK_WAIT, embedder);
  }

  LuceneKeywordIndex(Path dir, int snippetChars, Duration commitInterval, Duration lockWait) {
    this(dir, snippetChars, commitInterval, lockWait, null);
  }

  /**
   * Opens (or creates) the index in {@code dir}, waiting up to {@code lockWait} for another writer.
   *
   * @throws UncheckedIOException when the index cannot be opened, e.g. because another writer still
   *     holds it after {@code lockWait}
   */
  LuceneKeywordIndex(
      Path dir, int snippetChars, Duration commitInterval, Duration lockWait, Embedder embedder) {
    this.path = dir;
    this.search = new KeywordSearch(analyzer, snippetChars);
    this.dense = embedder == null ? null : new DenseView(embedder);
    String version =
        dense == null
            ? WorkspaceAnalyzer.VERSION
            : WorkspaceAnalyzer.VERSION + "+dense:" + dense.modelId();
    this.indexThread = new IndexThread(dir);
    try {
      this.writer =
          indexThread.call(
              () -> new RecoveringWriter(dir, analyzer, version, commitInterval, lockWait));
      indexThread.call(writer::warmUp);
    } catch (RuntimeException e) {
      indexThread.shutdown();
      throw e;
    }
    this.quiet = new QuietMerges("memstack-builtin-merge", this::mergeQuietly);
    quiet.check();
  }

  /** Merges the small segments now, as a quiet spell would (for tests). */
  void mergeSmallSegmentsNow() throws IOException {
    quiet.runNow();
  }

  /**
   * Merges the index's small segments once writes have gone quiet ({@link QuietMerges}): the merge
   * runs on the quiet-merge thread while writes go on; the commit and refresh that make it count
   * run on the index thread.
   */
  private void mergeQuietly() throws IOException {
    IndexSearcher searcher = acquire();
    int segments;
    try {
      segments = searcher.getIndexReader().leaves().size();
    } finally {
      release(searcher);
    }
    if (segments < 2 || closing.get() || !writer.mergeSmallSegments()) {
      return;
    }
    indexThread.call(
        () -> {
          writer.commitAndRelease();
          return null;
        });
  }

  @Override
  public void committed(Bucket bucket, List<Change> changes, Predicate<WorkspacePath> weighted) {
    for (Change change : changes) {
      if (change.path().isKeptOutOfSearch()) {
        continue; // never searched
      }
      if (change.after() == null) {
        remove(bucket, change.path());
      } else if (change.content() != null) {
        FileEntry after = change.after();
        replace(
            bucket,
            change.path(),
            change.content(),
            FileStamp.of(after),
            after.updateTime(),
            weighted.test(change.path()));
      }
    }
    Batch batch = batches.get();
    if (batch == null) {
      refresh();
    } else {
      batch.changed = true;
    }
  }

  /**
   * The batch open on this thread: nesting depth, whether a commit is not searchable yet, and the
   * vectors of the paragraphs it said were coming, by embedded text.
   */
  private static final class Batch {
    int depth;
    boolean changed;
    final Map<String, float[]> coming = new HashMap<>();
  }

  /** The batch open on each thread, for this index only. */
  private final ThreadLocal<Batch> batches = new ThreadLocal<>();

  @Override
  public <T> T batch(List<String> coming, Supplier<T> work) {
    Batch batch = batches.get();
    if (batch == null) {
      batch = new Batch();
      batches.set(batch);
    }
    batch.depth++;
    try {
      if (dense != null && !coming.isEmpty()) {
        try {
          batch.coming.putAll(dense.embedAll(coming, batch.coming));
        } catch (RuntimeException e) {
          // a hint only: each commit embeds what it needs, and fails as it would have without it
          log.debug("cannot embed the paragraphs of a batch up front: {}", e.toString());
        }
      }
      return work.get();
    } finally {
      if (--batch.depth == 0) {
        batches.remove();
        if (batch.changed) {
          refresh();
        }
      }
    }
  }

  /**
   * Compares the stamp (size and update time) of every file of the store with the one indexed, and
   * indexes again the files that differ; removes the files the store no longer has.
   */
  @Override
  public void catchUp(WorkspaceStore store, Predicate<WorkspacePath> weighted) {
    long started = System.nanoTime();
    Map<String, FileStamp> indexed = new HashMap<>(stamps());
    int reindexed = 0;
    for (Bucket bucket : store.buckets()) {
      for (FileEntry entry : store.list(bucket)) {
        if (entry.path().isKeptOutOfSearch()) {
          continue; // never searched
        }
        FileStamp known = indexed.remove(KeywordIndex.fileKey(bucket, entry.path()));
        if (!FileStamp.of(entry).equals(known)) {
          Optional<String> content = store.read(bucket, entry.path());
          if (content.isPresent()) {
            replace(
                bucket,
                entry.path(),
                content.get(),
                FileStamp.of(entry),
                entry.updateTime(),
                weighted.test(entry.path()));
            reindexed++;
          }
        }
      }
    }
    for (String gone : indexed.keySet()) {
      removeByKey(gone);
    }
    if (reindexed > 0 || !indexed.isEmpty()) {
      refresh();
      commit();
      log.info(
          "keyword index brought up to date: {} files re-indexed, {} removed, in {} ms",
          reindexed,
          indexed.size(),
          (System.nanoTime() - started) / 1_000_000);
    }
  }

  /**
   * Indexes a file's content, replacing whatever was indexed for it. Searchable after the next
   * {@link #refresh()}.
   *
   * @param weighted whether hits in the file count {@code weight} times (core files)
   */
  public void replace(
      Bucket bucket,
      WorkspacePath path,
      String content,
      FileStamp stamp,
      Instant updateTime,
      boolean weighted) {
    String key = KeywordIndex.fileKey(bucket, path);
    List<Document> docs = new ArrayList<>();
    docs.add(IndexDocuments.file(bucket, key, stamp));
    List<Paragraphs.Chunk> chunks = Paragraphs.chunks(content);
    List<float[]> vectors = dense == null ? null : dense.vectors(chunks, knownVectors(key));
    for (int i = 0; i < chunks.size(); i++) {
      docs.add(
          IndexDocuments.chunk(
              bucket,
              key,
              path,
              chunks.get(i),
              updateTime,
              weighted,
              vectors == null ? null : vectors.get(i)));
    }
    apply(new Update(IndexDocuments.key(key), docs), "cannot index " + key);
  }

  /**
   * The vectors of {@link #previousVectors}, and those of the paragraphs a batch said were coming.
   */
  private Map<String, float[]> knownVectors(String key) {
    Map<String, float[]> previous = previousVectors(key);
    Batch batch = batches.get();
    if (batch == null || batch.coming.isEmpty()) {
      return previous;
    }
    Map<String, float[]> known = new HashMap<>(batch.coming);
    known.putAll(previous);
    return known;
  }

  /**
   * The vectors the file's paragraphs have in the index now (searchable ones), by embedded text.
   */
  private Map<String, float[]> previousVectors(String key) {
    try {
      IndexSearcher searcher = acquire();
      try {
        return IndexDocuments.vectorsOf(searcher, key);
      } finally {
        release(searcher);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the keyword index", e);
    }
  }

  @Override
  public boolean dense() {
    return dense != null;
  }

  @Override
  public String denseModel() {
    return dense == null ? null : dense.modelId();
  }

  @Override
  public List<KeywordHit> nearest(
      Collection<Bucket> buckets, String query, int limit, Collection<String> excludedFiles) {
    if (dense == null || query.isBlank() || buckets.isEmpty() || limit <= 0) {
      return List.of();
    }
    Set<String> queryTerms = KeywordTexts.terms(analyzer, query);
    float[] vector = dense.query(query);
    Query inBuckets = KeywordQueries.inBuckets(buckets);
    try {
      IndexSearcher searcher = acquire();
      try {
        return search.nearest(searcher, vector, queryTerms, inBuckets, limit, excludedFiles);
      } finally {
        release(searcher);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot search the keyword index", e);
    }
  }

  /** Removes a file; searchable after the next {@link #refresh()}. */
  public void remove(Bucket bucket, WorkspacePath path) {
    removeByKey(KeywordIndex.fileKey(bucket, path));
  }

  /** Removes a file by its {@link KeywordIndex#fileKey}. */
  public void removeByKey(String fileKey) {
    apply(new Delete(IndexDocuments.key(fileKey)), "cannot remove " + fileKey + " from the index");
  }

  private void apply(RecoveringWriter.Change change, String failure) {
    indexThread.call(
        () -> {
          writer.apply(change, failure);
          return null;
        });
    quiet.wrote();
  }

  /** The versions of every indexed file, by {@link KeywordIndex#fileKey}. */
  public Map<String, FileStamp> stamps() {
    Map<String, FileStamp> stamps = new HashMap<>();
    try {
      IndexSearcher searcher = acquire();
      try {
        Query files = KeywordQueries.files();
        int count = Math.max(1, searcher.count(files));
        StoredFields stored = searcher.storedFields();
        for (ScoreDoc hit : searcher.search(files, count).scoreDocs) {
          Document doc = stored.document(hit.doc);
          stamps.put(doc.get(IndexDocuments.F_KEY), IndexDocuments.stamp(doc));
        }
      } finally {
        release(searcher);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the keyword index", e);
    }
    return stamps;
  }

  @Override
  public List<KeywordHit> search(KeywordQuery query) {
    Set<String> queryTerms = KeywordTexts.terms(analyzer, query.text());
    if (queryTerms.isEmpty() || query.buckets().isEmpty() || query.limit() <= 0) {
      return List.of();
    }
    Query inBuckets = KeywordQueries.inBuckets(query.buckets());
    try {
      IndexSearcher searcher = acquire();
      try {
        return search.best(searcher, queryTerms, inBuckets, query);
      } finally {
        release(searcher);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot search the keyword index", e);
    }
  }

  /** Makes the changes so far searchable, and commits them if the commit interval has passed. */
  public void refresh() {
    indexThread.call(
        () -> {
          writer.refresh();
          return null;
        });
  }

  @Override
  public void expungeDeletes() {
    // not beside a quiet merge: one begun before the deletes would keep their bytes in a segment
    // the expunge does not see
    quiet.lock().lock();
    try {
      indexThread.call(
          () -> {
            writer.expungeDeletes();
            return null;
          });
    } finally {
      quiet.lock().unlock();
    }
  }

  @Override
  public void commit() {
    indexThread.call(
        () -> {
          writer.commit();
          return null;
        });
  }

  /**
   * Closes the index after the work already handed to the index thread; later calls fail with
   * {@link AlreadyClosedException}.
   */
  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    quiet.close();
    try {
      indexThread.call(
          () -> {
            writer.close();
            return null;
          },
          CLOSE_WAIT);
    } catch (RuntimeException e) {
      log.warn("closing the keyword index in {} failed: {}", path, e.toString());
    } finally {
      indexThread.shutdown();
    }
  }

  /** How often the writer failed for good and was reopened (for tests and diagnosis). */
  int reopens() {
    return writer.reopens();
  }

  /**
   * Acquires a searcher, following a writer that was reopened in the meantime; give it back with
   * {@link #release}.
   */
  private IndexSearcher acquire() throws IOException {
    writer.ensureOpen();
    SearcherManager searchers = writer.searchers();
    try {
      return searchers.acquire();
    } catch (AlreadyClosedException e) {
      writer.ensureOpen();
      SearcherManager now = writer.searchers();
      if (now == searchers) {
        throw e;
      }
      return now.acquire();
    }
  }

  /**
   * Gives back a searcher of {@link #acquire()} (what {@code SearcherManager.release} does), on the
   * index thread without waiting: the last release of a replaced near-real-time reader deletes the
   * files only it used, and the writer checks its lock with a {@code FileChannel} call first, which
   * an interrupted searching thread would turn into a closed lock channel.
   */
  private void release(IndexSearcher searcher) {
    IndexReader reader = searcher.getIndexReader();
    try {
      indexThread.execute(() -> decRef(reader));
    } catch (RejectedExecutionException e) {
      decRef(reader); // closed: there is no writer left to protect
    }
  }

  private static void decRef(IndexReader reader) {
    try {
      reader.decRef();
    } catch (IOException | RuntimeException e) {
      log.warn("releasing a keyword index reader failed: {}", e.toString());
    }
  }
}
