package dev.memstack.builtin.search;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.BytesRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyword index in Apache Lucene, stored under one directory. Each file is indexed as
 * paragraphs (runs of non-blank lines, at most {@value #CHUNK_MAX_LINES} lines or {@value
 * #CHUNK_MAX_CHARS} characters) with {@link WorkspaceAnalyzer}, plus one record of its size and
 * modification time, so that a restart can tell which files changed behind the index's back.
 * Scoring is Lucene's BM25, multiplied at query time by the weight for core files (searched apart
 * from the other files and merged); a query is the OR of its {@value #MAX_SCORED_TERMS} rarest
 * terms (of its first {@value #MAX_QUERY_TERMS}), filtered to the caller's buckets.
 *
 * <p>Changes are searchable after {@link #refresh()} (a near-real-time reopen), which the workspace
 * calls once per committed write; commits to disk happen at most once per commit interval and on
 * close. A stored index that cannot be opened or was built by another analyzer version is thrown
 * away and rebuilt from the files by the caller.
 *
 * <p>Interrupts: the host interrupts provider calls that run past their deadline, and an interrupt
 * that lands while a thread writes through a {@code FileChannel} closes the channel; inside Lucene
 * that closes the {@code IndexWriter} for good (or invalidates its write lock). So every writer
 * operation (update, delete, near-real-time reopen, commit, close) runs on one dedicated index
 * thread that nobody interrupts, and the calling thread waits for it uninterruptibly (keeping its
 * interrupt flag); searchers are given back there too, since the last release of an old reader
 * deletes files. Searches read memory-mapped files, which interrupts cannot break. Should the
 * writer still fail for good (a full disk, say), it is reopened from the last commit and the
 * changes made since are applied again, so the index recovers without a restart.
 *
 * <p>One writer per directory: an index whose write lock another writer holds (another provider
 * instance on the same data directory, e.g. the previous instance of a plugin reload that is still
 * closing) is waited for, up to {@link #DEFAULT_LOCK_WAIT}, and then refused with a message that
 * says so. It is never mistaken for a broken index, which would be deleted and rebuilt under the
 * other writer's feet.
 */
public final class LuceneKeywordIndex implements KeywordIndex {

  static final int CHUNK_MAX_LINES = 12;
  static final int CHUNK_MAX_CHARS = 1000;
  static final int MAX_QUERY_TERMS = 256;
  static final int MAX_SCORED_TERMS = 16;

  private static final Logger log = LoggerFactory.getLogger(LuceneKeywordIndex.class);
  private static final Pattern HTML_COMMENT = Pattern.compile("<!--.*?-->");
  private static final String F_KEY = "key";
  private static final String F_KIND = "kind";
  private static final String F_BUCKET = "bucket";
  private static final String F_TEXT = "text";
  private static final String F_CLASS = "class";
  private static final String CLASS_CORE = "core";
  private static final String F_HIT = "hit";
  private static final String F_SIZE = "size";
  private static final String F_MTIME = "mtime";
  private static final String KIND_CHUNK = "chunk";
  private static final String KIND_FILE = "file";
  private static final String ANALYZER_KEY = "analyzer";

  /** Most changes kept for a replay before a commit is forced. */
  static final int MAX_UNCOMMITTED_CHANGES = 1000;

  /** How long opening waits for another writer to release the index. */
  public static final Duration DEFAULT_LOCK_WAIT = Duration.ofSeconds(10);

  /** How long a close waits for the index thread before it gives up (and logs). */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  private static final Duration LOCK_RETRY = Duration.ofMillis(100);

  private final Analyzer analyzer = new WorkspaceAnalyzer();
  private final Path path;
  private final Directory directory;
  private final ThreadPoolExecutor indexThread;
  private final int snippetChars;
  private final long commitIntervalNanos;
  private final Duration lockWait;

  /** The writer and its searchers; replaced as a whole when the writer is reopened. */
  private volatile Writer current;

  /** Set by the close on the index thread: work queued behind it and searches fail. */
  private volatile boolean closed;

  private final AtomicBoolean closing = new AtomicBoolean();
  private final AtomicInteger reopens = new AtomicInteger();

  // confined to the index thread
  private final List<Change> uncommitted = new ArrayList<>();
  private long lastCommitNanos = System.nanoTime();
  private boolean dirty;

  private record Writer(IndexWriter writer, SearcherManager searchers) {}

  /** A change since the last commit, kept so that a reopened writer can apply it again. */
  private interface Change {
    void applyTo(IndexWriter writer) throws IOException;
  }

  private record Update(Term key, List<Document> docs) implements Change {
    @Override
    public void applyTo(IndexWriter writer) throws IOException {
      writer.updateDocuments(key, docs);
    }
  }

  private record Delete(Term key) implements Change {
    @Override
    public void applyTo(IndexWriter writer) throws IOException {
      writer.deleteDocuments(key);
    }
  }

  /**
   * Opens (or creates) the index in {@code dir}.
   *
   * @param snippetChars length of hit snippets
   * @param commitInterval least time between two commits caused by writes
   */
  public LuceneKeywordIndex(Path dir, int snippetChars, Duration commitInterval) {
    this(dir, snippetChars, commitInterval, DEFAULT_LOCK_WAIT);
  }

  /**
   * Opens (or creates) the index in {@code dir}, waiting up to {@code lockWait} for another writer.
   *
   * @throws UncheckedIOException when the index cannot be opened, e.g. because another writer still
   *     holds it after {@code lockWait}
   */
  LuceneKeywordIndex(Path dir, int snippetChars, Duration commitInterval, Duration lockWait) {
    this.path = dir;
    this.snippetChars = snippetChars;
    this.commitIntervalNanos = commitInterval.toNanos();
    this.lockWait = lockWait;
    this.indexThread = indexThread(dir);
    try {
      Directory[] opened = new Directory[1];
      this.current = onIndexThread(() -> open(dir, opened));
      this.directory = opened[0];
      onIndexThread(this::warmUp);
    } catch (RuntimeException e) {
      indexThread.shutdown();
      throw e;
    }
  }

  /**
   * Runs one write, commit and search on a throwaway in-memory index so that Lucene's write and
   * search paths are loaded and compiled before the first request: measured cold, the first write
   * of a fresh process took 0.7-1 s, close to the stack's per-provider deadline.
   */
  private Void warmUp() throws IOException {
    try (Directory scratch = new ByteBuffersDirectory();
        IndexWriter writer = new IndexWriter(scratch, new IndexWriterConfig(analyzer))) {
      Document doc = new Document();
      doc.add(new StringField(F_KEY, "warm-up", Field.Store.YES));
      doc.add(new TextField(F_TEXT, "warm up the index 预热索引", Field.Store.NO));
      doc.add(new BinaryDocValuesField(F_HIT, new BytesRef("warm-up")));
      doc.add(new StringField(F_CLASS, CLASS_CORE, Field.Store.NO));
      writer.updateDocuments(new Term(F_KEY, "warm-up"), List.of(doc));
      writer.commit();
      try (DirectoryReader reader = DirectoryReader.open(writer)) {
        new IndexSearcher(reader).search(new TermQuery(new Term(F_TEXT, "warm")), 1);
      }
    }
    return null;
  }

  /**
   * The index thread: one at most, created when work arrives and ended after a minute without, so
   * that an idle provider holds no thread; it loads classes from this plugin.
   */
  private static ThreadPoolExecutor indexThread(Path dir) {
    ClassLoader loader = LuceneKeywordIndex.class.getClassLoader();
    Path instance = dir.toAbsolutePath().getParent();
    String name =
        "memstack-builtin-index"
            + (instance == null || instance.getFileName() == null
                ? ""
                : "-" + instance.getFileName());
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            1,
            1,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread thread = new Thread(task, name);
              thread.setDaemon(true);
              thread.setContextClassLoader(loader);
              return thread;
            });
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  /** Opens the directory and the writer (index thread). */
  private Writer open(Path dir, Directory[] opened) throws IOException {
    Files.createDirectories(dir);
    // memory-mapped reads cannot be broken by an interrupt, unlike FileChannel reads
    Directory files = new MMapDirectory(dir);
    IndexWriter writer;
    try {
      writer = openWhenUnlocked(files);
    } catch (LockObtainFailedException e) {
      files.close();
      throw e;
    } catch (IOException | RuntimeException e) {
      log.warn("the keyword index in {} cannot be opened ({}); rebuilding it", dir, e.toString());
      files.close();
      deleteContents(dir);
      files = new MMapDirectory(dir);
      writer = openWhenUnlocked(files);
    }
    opened[0] = files;
    return new Writer(writer, new SearcherManager(writer, null));
  }

  /**
   * Opens the writer, retrying while another writer holds the lock (in this JVM under another class
   * loader, a reloaded plugin's, the JDK reports that as {@link OverlappingFileLockException}).
   */
  private IndexWriter openWhenUnlocked(Directory files) throws IOException {
    long deadline = System.nanoTime() + lockWait.toNanos();
    boolean logged = false;
    while (true) {
      try {
        return openWriter(files);
      } catch (LockObtainFailedException | OverlappingFileLockException e) {
        if (System.nanoTime() - deadline >= 0) {
          throw new LockObtainFailedException(
              "the keyword index in "
                  + path
                  + " is locked by another writer (another provider instance on the same data"
                  + " directory?) and was not released within "
                  + lockWait.toMillis()
                  + " ms",
              e);
        }
        if (!logged) {
          log.info("the keyword index in {} is locked by another writer; waiting for it", path);
          logged = true;
        }
        LockSupport.parkNanos(LOCK_RETRY.toNanos());
      }
    }
  }

  private IndexWriter openWriter(Directory dir) throws IOException {
    IndexWriterConfig config = new IndexWriterConfig(analyzer);
    config.setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
    config.setCommitOnClose(true);
    // each change is made visible at once (a small flushed segment); compound files would re-read
    // and checksum every one of them
    config.setUseCompoundFile(false);
    TieredMergePolicy merges = new TieredMergePolicy();
    merges.setNoCFSRatio(0.0);
    // an expunge merges every segment with a deleted entry, not only those past 10 % of them
    merges.setForceMergeDeletesPctAllowed(0.0);
    config.setMergePolicy(merges);
    IndexWriter opened = new IndexWriter(dir, config);
    try {
      Map<String, String> data = new HashMap<>();
      for (Map.Entry<String, String> entry : opened.getLiveCommitData()) {
        data.put(entry.getKey(), entry.getValue());
      }
      if (!WorkspaceAnalyzer.VERSION.equals(data.get(ANALYZER_KEY))) {
        if (opened.getDocStats().numDocs > 0) {
          log.info("the keyword index was built by another analyzer; rebuilding it");
        }
        opened.deleteAll();
        opened.setLiveCommitData(Map.of(ANALYZER_KEY, WorkspaceAnalyzer.VERSION).entrySet());
        opened.commit();
      }
      return opened;
    } catch (IOException | RuntimeException e) {
      // give the write lock back, or the rebuild (or the next start) could not take it
      try {
        opened.rollback();
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  @Override
  public void replace(
      Bucket bucket,
      WorkspacePath path,
      String content,
      FileStamp stamp,
      Instant updateTime,
      boolean weighted) {
    String key = KeywordIndex.fileKey(bucket, path);
    List<Document> docs = new ArrayList<>();
    Document file = base(bucket, key, KIND_FILE);
    file.add(new StoredField(F_SIZE, stamp.size()));
    file.add(new StoredField(F_MTIME, stamp.modifiedMillis()));
    docs.add(file);
    for (Chunk chunk : chunks(content)) {
      Document doc = base(bucket, key, KIND_CHUNK);
      doc.add(new TextField(F_TEXT, chunk.text(), Field.Store.NO));
      doc.add(
          new BinaryDocValuesField(
              F_HIT, new BytesRef(encodeHit(key, bucket, path, chunk, updateTime))));
      doc.add(new StringField(F_CLASS, weighted ? CLASS_CORE : "other", Field.Store.NO));
      docs.add(doc);
    }
    apply(new Update(new Term(F_KEY, key), docs), "cannot index " + key);
  }

  @Override
  public void remove(Bucket bucket, WorkspacePath path) {
    removeByKey(KeywordIndex.fileKey(bucket, path));
  }

  @Override
  public void removeByKey(String fileKey) {
    apply(new Delete(new Term(F_KEY, fileKey)), "cannot remove " + fileKey + " from the index");
  }

  @Override
  public Map<String, FileStamp> stamps() {
    Map<String, FileStamp> stamps = new HashMap<>();
    try {
      IndexSearcher searcher = acquire();
      try {
        Query files = new TermQuery(new Term(F_KIND, KIND_FILE));
        int count = Math.max(1, searcher.count(files));
        StoredFields stored = searcher.storedFields();
        for (ScoreDoc hit : searcher.search(files, count).scoreDocs) {
          Document doc = stored.document(hit.doc);
          stamps.put(
              doc.get(F_KEY),
              new FileStamp(
                  doc.getField(F_SIZE).numericValue().longValue(),
                  doc.getField(F_MTIME).numericValue().longValue()));
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
  public List<KeywordHit> search(
      Collection<Bucket> buckets,
      String query,
      int limit,
      int maxFiles,
      double weight,
      Collection<String> excludedFiles) {
    Set<String> queryTerms = terms(query);
    if (queryTerms.isEmpty() || buckets.isEmpty() || limit <= 0) {
      return List.of();
    }
    BooleanQuery.Builder visible = new BooleanQuery.Builder();
    for (Bucket bucket : buckets) {
      visible.add(new TermQuery(new Term(F_BUCKET, bucket.key())), BooleanClause.Occur.SHOULD);
    }
    Query inBuckets = visible.build();
    int fetch = limit <= maxFiles ? limit : Math.min(1000, limit * 4);
    try {
      IndexSearcher searcher = acquire();
      try {
        Set<String> terms = rarest(searcher, queryTerms);
        if (terms.isEmpty()) {
          return List.of();
        }
        BooleanQuery.Builder words = new BooleanQuery.Builder();
        for (String term : terms) {
          words.add(new TermQuery(new Term(F_TEXT, term)), BooleanClause.Occur.SHOULD);
        }
        Query text = words.build();
        // Two searches, core files and the rest, so that each keeps Lucene's top-k pruning; a
        // core hit's score is then multiplied by the weight and the two lists merged, which gives
        // the exact top hits by weighted score.
        List<ScoreDoc> merged = new ArrayList<>();
        for (ScoreDoc hit : top(searcher, classed(text, inBuckets, true, excludedFiles), fetch)) {
          merged.add(new ScoreDoc(hit.doc, (float) (hit.score * weight)));
        }
        merged.addAll(
            List.of(top(searcher, classed(text, inBuckets, false, excludedFiles), fetch)));
        merged.sort(
            java.util.Comparator.comparingDouble((ScoreDoc d) -> d.score)
                .reversed()
                .thenComparingInt(d -> d.doc));
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        List<KeywordHit> hits = new ArrayList<>();
        Set<String> files = new HashSet<>();
        for (ScoreDoc hit : merged) {
          if (hits.size() >= limit) {
            break;
          }
          String[] stored = storedHit(leaves, hit.doc);
          String key = stored[0];
          if (!files.contains(key) && files.size() >= maxFiles) {
            continue;
          }
          files.add(key);
          hits.add(toHit(stored, hit.score, terms));
        }
        return hits;
      } finally {
        release(searcher);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot search the keyword index", e);
    }
  }

  private static Query classed(
      Query text, Query inBuckets, boolean core, Collection<String> excludedFiles) {
    Query weightClass = new TermQuery(new Term(F_CLASS, CLASS_CORE));
    BooleanQuery.Builder query =
        new BooleanQuery.Builder()
            .add(text, BooleanClause.Occur.MUST)
            .add(inBuckets, BooleanClause.Occur.FILTER)
            .add(weightClass, core ? BooleanClause.Occur.FILTER : BooleanClause.Occur.MUST_NOT);
    for (String excluded : excludedFiles) {
      query.add(new TermQuery(new Term(F_KEY, excluded)), BooleanClause.Occur.MUST_NOT);
    }
    return query.build();
  }

  /** The best {@code n} hits; no total count is needed, so top-k pruning starts at once. */
  private static ScoreDoc[] top(IndexSearcher searcher, Query query, int n) throws IOException {
    return searcher.search(query, new TopScoreDocCollectorManager(n, null, 1)).scoreDocs;
  }

  @Override
  public void refresh() {
    onIndexThread(
        () -> {
          withRecovery(
              "cannot refresh the keyword index",
              () -> {
                current.searchers().maybeRefreshBlocking();
                return null;
              });
          if (dirty && System.nanoTime() - lastCommitNanos >= commitIntervalNanos) {
            commitNow();
          }
          return null;
        });
  }

  /**
   * Merges away every deleted entry ({@code forceMergeDeletes}), commits (the default deletion
   * policy keeps only the last commit point), and reopens the searchers, so that the writer deletes
   * the files of the old segments once the searches still running on them are done.
   */
  @Override
  public void expungeDeletes() {
    onIndexThread(
        () -> {
          withRecovery(
              "cannot expunge the keyword index",
              () -> {
                current.writer().forceMergeDeletes(true);
                return null;
              });
          commitNow();
          withRecovery(
              "cannot refresh the keyword index",
              () -> {
                current.searchers().maybeRefreshBlocking();
                current.writer().deleteUnusedFiles();
                return null;
              });
          return null;
        });
  }

  @Override
  public void commit() {
    onIndexThread(
        () -> {
          commitNow();
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
    try {
      onIndexThread(
          () -> {
            closed = true;
            Writer writer = current;
            try {
              writer.searchers().close();
              writer.writer().close();
            } finally {
              directory.close();
            }
            return null;
          },
          CLOSE_WAIT);
    } catch (RuntimeException e) {
      log.warn("closing the keyword index in {} failed: {}", path, e.toString());
    } finally {
      indexThread.shutdown();
    }
  }

  // ---------------------------------------------------------------- the index thread

  private interface IndexWork<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code work} on the index thread and waits for it without giving in to interrupts: the
   * work is short, and a caller that stopped waiting half-way would leave a write unindexed. The
   * caller's interrupt flag is set again afterwards.
   */
  private <T> T onIndexThread(IndexWork<T> work) {
    return onIndexThread(work, null);
  }

  /** Same, waiting at most {@code timeout} ({@code null}: as long as it takes). */
  private <T> T onIndexThread(IndexWork<T> work, Duration timeout) {
    Future<T> result;
    try {
      result = indexThread.submit((Callable<T>) work::run);
    } catch (RejectedExecutionException e) {
      throw new AlreadyClosedException("the keyword index in " + path + " is closed");
    }
    boolean interrupted = false;
    long deadline = timeout == null ? 0 : System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        try {
          if (timeout == null) {
            return result.get();
          }
          return result.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (TimeoutException e) {
          throw new IllegalStateException(
              "the keyword index thread of "
                  + path
                  + " did not finish within "
                  + timeout.toMillis()
                  + " ms");
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof IOException io) {
            throw new UncheckedIOException("keyword index " + path + ": " + io.getMessage(), io);
          }
          if (cause instanceof RuntimeException runtime) {
            throw runtime;
          }
          if (cause instanceof Error error) {
            throw error;
          }
          throw new IllegalStateException(cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Applies one change on the index thread, keeping it for a replay until the next commit. */
  private void apply(Change change, String failure) {
    onIndexThread(
        () -> {
          ensureOpen();
          uncommitted.add(change);
          dirty = true;
          try {
            change.applyTo(current.writer());
          } catch (IOException | RuntimeException e) {
            if (writerIsOpen()) {
              // a failure of this change alone (the writer goes on): nothing to replay
              uncommitted.remove(uncommitted.size() - 1);
              throw unchecked(failure, e);
            }
            reopen(e);
          }
          if (uncommitted.size() >= MAX_UNCOMMITTED_CHANGES) {
            try {
              commitNow();
            } catch (IOException | RuntimeException e) {
              // the change itself is applied; the commit is tried again with the next refresh
              log.warn("a commit of the keyword index in {} failed: {}", path, e.toString());
            }
          }
          return null;
        });
  }

  /** Commits (index thread); a writer that failed for good is reopened and the commit retried. */
  private void commitNow() throws IOException {
    withRecovery(
        "cannot commit the keyword index",
        () -> {
          IndexWriter writer = current.writer();
          writer.setLiveCommitData(Map.of(ANALYZER_KEY, WorkspaceAnalyzer.VERSION).entrySet());
          writer.commit();
          return null;
        });
    uncommitted.clear();
    dirty = false;
    lastCommitNanos = System.nanoTime();
  }

  /** Runs {@code work}; if the writer failed for good, reopens it and runs {@code work} again. */
  private <T> T withRecovery(String failure, IndexWork<T> work) throws IOException {
    ensureOpen();
    try {
      return work.run();
    } catch (IOException | RuntimeException e) {
      if (writerIsOpen()) {
        throw unchecked(failure, e);
      }
      reopen(e);
      return work.run();
    }
  }

  private static RuntimeException unchecked(String failure, Exception e) {
    return e instanceof IOException io
        ? new UncheckedIOException(failure, io)
        : (RuntimeException) e;
  }

  private boolean writerIsOpen() {
    IndexWriter writer = current.writer();
    return writer.isOpen() && writer.getTragicException() == null;
  }

  /**
   * Replaces a writer that failed for good (index thread): rolls it back, opens a new one on the
   * last commit, applies the changes made since, and swaps in new searchers.
   */
  private void reopen(Throwable cause) throws IOException {
    Writer failed = current;
    reopens.incrementAndGet();
    log.warn(
        "the keyword index writer in {} failed ({}); reopening it from the last commit and"
            + " applying the {} changes made since",
        path,
        failed.writer().getTragicException() != null
            ? failed.writer().getTragicException().toString()
            : cause.toString(),
        uncommitted.size());
    try {
      failed.writer().rollback();
    } catch (IOException | RuntimeException e) {
      // already closed by its tragic event; the write lock is released either way
    }
    // nothing may interrupt this thread; should something have, the new writer must not inherit it
    Thread.interrupted();
    IndexWriter writer = openWriter(directory);
    try {
      for (Change change : uncommitted) {
        change.applyTo(writer);
      }
      current = new Writer(writer, new SearcherManager(writer, null));
    } catch (IOException | RuntimeException e) {
      writer.rollback();
      throw e;
    }
    try {
      failed.searchers().close();
    } catch (IOException | RuntimeException e) {
      log.debug("closing the searchers of the failed writer: {}", e.toString());
    }
  }

  // ---------------------------------------------------------------- searching

  /** How often the writer failed for good and was reopened (for tests and diagnosis). */
  int reopens() {
    return reopens.get();
  }

  private void ensureOpen() {
    if (closed) {
      throw new AlreadyClosedException("the keyword index in " + path + " is closed");
    }
  }

  /**
   * Acquires a searcher, following a writer that was reopened in the meantime; give it back with
   * {@link #release}.
   */
  private IndexSearcher acquire() throws IOException {
    ensureOpen();
    SearcherManager searchers = current.searchers();
    try {
      return searchers.acquire();
    } catch (AlreadyClosedException e) {
      ensureOpen();
      SearcherManager now = current.searchers();
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

  // ---------------------------------------------------------------- helpers

  record Chunk(int line, String text) {}

  private static Document base(Bucket bucket, String key, String kind) {
    Document doc = new Document();
    doc.add(new StringField(F_KEY, key, Field.Store.YES));
    doc.add(new StringField(F_KIND, kind, Field.Store.NO));
    doc.add(new StringField(F_BUCKET, bucket.key(), Field.Store.NO));
    return doc;
  }

  /**
   * Paragraphs of {@code content}: runs of non-blank lines, HTML comments removed, split if long.
   */
  static List<Chunk> chunks(String content) {
    List<Chunk> chunks = new ArrayList<>();
    String[] lines = content.split("\n", -1);
    StringBuilder text = new StringBuilder();
    int start = 0;
    int count = 0;
    for (int i = 0; i < lines.length; i++) {
      String line =
          HTML_COMMENT.matcher(lines[i]).replaceAll("").replace('\0', ' ').stripTrailing();
      if (line.isBlank()) {
        if (count > 0) {
          chunks.add(new Chunk(start, text.toString()));
          text.setLength(0);
          count = 0;
        }
        continue;
      }
      if (count > 0
          && (count >= CHUNK_MAX_LINES || text.length() + line.length() + 1 > CHUNK_MAX_CHARS)) {
        chunks.add(new Chunk(start, text.toString()));
        text.setLength(0);
        count = 0;
      }
      if (count == 0) {
        start = i + 1;
      } else {
        text.append('\n');
      }
      text.append(line);
      count++;
    }
    if (count > 0) {
      chunks.add(new Chunk(start, text.toString()));
    }
    return chunks;
  }

  /**
   * The query terms that occur in the index, rarest first, at most {@value #MAX_SCORED_TERMS}: rare
   * words carry the meaning of a long message and are cheap to score, while words found in most
   * paragraphs add little to BM25 but cost the most to evaluate.
   */
  private static Set<String> rarest(IndexSearcher searcher, Set<String> terms) throws IOException {
    record Frequency(String term, int docFreq) {}
    List<Frequency> found = new ArrayList<>();
    for (String term : terms) {
      int docFreq = searcher.getIndexReader().docFreq(new Term(F_TEXT, term));
      if (docFreq > 0) {
        found.add(new Frequency(term, docFreq));
      }
    }
    found.sort(java.util.Comparator.comparingInt(Frequency::docFreq));
    Set<String> rarest = new LinkedHashSet<>();
    for (Frequency frequency : found) {
      if (rarest.size() >= MAX_SCORED_TERMS) {
        break;
      }
      rarest.add(frequency.term());
    }
    return rarest;
  }

  private Set<String> terms(String text) {
    Set<String> terms = new LinkedHashSet<>();
    if (text == null || text.isBlank()) {
      return terms;
    }
    try (TokenStream stream = analyzer.tokenStream(F_TEXT, text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken() && terms.size() < MAX_QUERY_TERMS) {
        terms.add(term.toString());
      }
      stream.end();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot analyse the query", e);
    }
    return terms;
  }

  /**
   * What a hit shows, kept in binary doc values (small compressed blocks, fast to read one by one)
   * rather than stored fields: key, scope, agent, owner, path, line, update time, text.
   */
  private static String encodeHit(
      String key, Bucket bucket, WorkspacePath path, Chunk chunk, Instant updateTime) {
    return String.join(
        "\0",
        key,
        bucket.scope().name(),
        bucket.agent() == null ? "" : bucket.agent().value(),
        bucket.owner() == null ? "" : bucket.owner().value(),
        path.value(),
        Integer.toString(chunk.line()),
        Long.toString(updateTime.toEpochMilli()),
        chunk.text());
  }

  private static String[] storedHit(List<LeafReaderContext> leaves, int doc) throws IOException {
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    BinaryDocValues values = leaf.reader().getBinaryDocValues(F_HIT);
    if (values == null || !values.advanceExact(doc - leaf.docBase)) {
      throw new IOException("index entry " + doc + " has no hit data");
    }
    return values.binaryValue().utf8ToString().split("\0", 8);
  }

  private KeywordHit toHit(String[] stored, double score, Set<String> queryTerms)
      throws IOException {
    String text = stored[7];
    int startLine = Integer.parseInt(stored[5]);
    int matchStart = 0;
    int matchEnd = 0;
    try (TokenStream stream = analyzer.tokenStream(F_TEXT, text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      OffsetAttribute offset = stream.addAttribute(OffsetAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        if (queryTerms.contains(term.toString())) {
          matchStart = offset.startOffset();
          matchEnd = offset.endOffset();
          break;
        }
      }
      stream.end();
    }
    int line = startLine;
    for (int i = 0; i < matchStart; i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    Scope scope = Scope.valueOf(stored[1]);
    String agent = stored[2];
    String owner = stored[3];
    Bucket bucket =
        new Bucket(
            scope,
            agent.isEmpty() ? null : AgentId.of(agent),
            owner.isEmpty() ? null : OwnerKey.of(owner));
    return new KeywordHit(
        bucket,
        WorkspacePath.of(stored[4]),
        line,
        text,
        snippet(text, matchStart, matchEnd, snippetChars),
        score,
        Instant.ofEpochMilli(Long.parseLong(stored[6])));
  }

  /** A window of {@code width} characters of {@code text} around the match, on one line. */
  static String snippet(String text, int matchStart, int matchEnd, int width) {
    String flat = text.replace('\n', ' ');
    if (flat.length() <= width) {
      return flat;
    }
    int matchLength = Math.max(0, matchEnd - matchStart);
    int start = Math.max(0, matchStart - Math.max(0, (width - matchLength) / 2));
    start = Math.min(start, flat.length() - width);
    int end = start + width;
    if (start > 0 && Character.isLowSurrogate(flat.charAt(start))) {
      start++;
    }
    if (end < flat.length() && Character.isHighSurrogate(flat.charAt(end - 1))) {
      end--;
    }
    return (start > 0 ? "…" : "") + flat.substring(start, end) + (end < flat.length() ? "…" : "");
  }

  private static void deleteContents(Path dir) throws IOException {
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            // the lock file stays: deleting it would let a second writer lock a new file
            if (!file.getFileName().toString().equals(IndexWriter.WRITE_LOCK_NAME)) {
              Files.delete(file);
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
            if (!d.equals(dir)) {
              Files.delete(d);
            }
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
