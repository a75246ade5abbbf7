package dev.memstack.builtin.store.files;

import static dev.memstack.builtin.store.files.IndexDocuments.ANALYZER_KEY;
import static dev.memstack.builtin.store.files.IndexDocuments.CLASS_CORE;
import static dev.memstack.builtin.store.files.IndexDocuments.F_CLASS;
import static dev.memstack.builtin.store.files.IndexDocuments.F_HIT;
import static dev.memstack.builtin.store.files.IndexDocuments.F_KEY;
import static dev.memstack.builtin.store.files.IndexDocuments.F_TEXT;

import dev.memstack.builtin.search.WorkspaceAnalyzer;
import dev.memstack.builtin.store.files.IndexThread.IndexWork;
import dev.memstack.support.QuietMerges;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.BytesRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer of a keyword index and its searchers, through their whole life: opened when the write
 * lock is free (a broken index or one of another analyzer version rebuilt), changes kept until the
 * next commit, and a writer that failed for good reopened from the last commit with those changes
 * applied again. Every method but {@link #searchers()}, {@link #ensureOpen()}, {@link
 * #mergeSmallSegments()} and {@link #reopens()} runs on the {@link IndexThread}.
 */
final class RecoveringWriter {

  /** Most changes kept for a replay before a commit is forced. */
  static final int MAX_UNCOMMITTED_CHANGES = 1000;

  private static final Duration LOCK_RETRY = Duration.ofMillis(100);

  // the log lines are the keyword index's
  private static final Logger log = LoggerFactory.getLogger(LuceneKeywordIndex.class);

  private final Analyzer analyzer;
  private final String version;
  private final Path path;
  private final Directory directory;
  private final long commitIntervalNanos;
  private final Duration lockWait;

  /** The writer and its searchers; replaced as a whole when the writer is reopened. */
  private volatile Writer current;

  /** Set by the close on the index thread: work queued behind it and searches fail. */
  private volatile boolean closed;

  private final AtomicInteger reopens = new AtomicInteger();

  // confined to the index thread
  private final List<Change> uncommitted = new ArrayList<>();
  private long lastCommitNanos = System.nanoTime();
  private boolean dirty;

  private record Writer(IndexWriter writer, SearcherManager searchers) {}

  /** A change since the last commit, kept so that a reopened writer can apply it again. */
  interface Change {
    void applyTo(IndexWriter writer) throws IOException;
  }

  /** Replaces every document of {@code key}. */
  record Update(Term key, List<Document> docs) implements Change {
    @Override
    public void applyTo(IndexWriter writer) throws IOException {
      writer.updateDocuments(key, docs);
    }
  }

  /** Deletes every document of {@code key}. */
  record Delete(Term key) implements Change {
    @Override
    public void applyTo(IndexWriter writer) throws IOException {
      writer.deleteDocuments(key);
    }
  }

  /** Opens the directory and the writer (index thread). */
  RecoveringWriter(Path dir, Analyzer analyzer, Duration commitInterval, Duration lockWait)
      throws IOException {
    this(dir, analyzer, WorkspaceAnalyzer.VERSION, commitInterval, lockWait);
  }

  /**
   * Opens the directory and the writer (index thread); an index whose commit data names another
   * {@code version} (analyzer and dense view, see {@link LuceneKeywordIndex}) is emptied.
   */
  RecoveringWriter(
      Path dir, Analyzer analyzer, String version, Duration commitInterval, Duration lockWait)
      throws IOException {
    this.analyzer = analyzer;
    this.version = version;
    this.path = dir;
    this.commitIntervalNanos = commitInterval.toNanos();
    this.lockWait = lockWait;
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
    this.directory = files;
    this.current = new Writer(writer, new SearcherManager(writer, null));
  }

  /**
   * Runs one write, commit and search on a throwaway in-memory index so that Lucene's write and
   * search paths are loaded and compiled before the first request: measured cold, the first write
   * of a fresh process took 0.7-1 s, close to the stack's per-provider deadline.
   */
  Void warmUp() throws IOException {
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
    config.setMergePolicy(QuietMerges.policy(merges));
    IndexWriter opened = new IndexWriter(dir, config);
    try {
      Map<String, String> data = new HashMap<>();
      for (Map.Entry<String, String> entry : opened.getLiveCommitData()) {
        data.put(entry.getKey(), entry.getValue());
      }
      if (!version.equals(data.get(ANALYZER_KEY))) {
        if (opened.getDocStats().numDocs > 0) {
          log.info("the keyword index was built by another analyzer; rebuilding it");
        }
        opened.deleteAll();
        opened.setLiveCommitData(Map.of(ANALYZER_KEY, version).entrySet());
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

  /** The searchers of the current writer. */
  SearcherManager searchers() {
    return current.searchers();
  }

  /** How often the writer failed for good and was reopened (for tests and diagnosis). */
  int reopens() {
    return reopens.get();
  }

  void ensureOpen() {
    if (closed) {
      throw new AlreadyClosedException("the keyword index in " + path + " is closed");
    }
  }

  /** Applies one change, keeping it for a replay until the next commit. */
  void apply(Change change, String failure) throws IOException {
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
        commit();
      } catch (IOException | RuntimeException e) {
        // the change itself is applied; the commit is tried again with the next refresh
        log.warn("a commit of the keyword index in {} failed: {}", path, e.toString());
      }
    }
  }

  /** Makes the changes searchable, and commits them if the commit interval has passed. */
  void refresh() throws IOException {
    withRecovery(
        "cannot refresh the keyword index",
        () -> {
          current.searchers().maybeRefreshBlocking();
          return null;
        });
    if (dirty && System.nanoTime() - lastCommitNanos >= commitIntervalNanos) {
      commit();
    }
  }

  /**
   * Merges away every deleted entry ({@code forceMergeDeletes}), commits (the default deletion
   * policy keeps only the last commit point), and reopens the searchers, so that the writer deletes
   * the files of the old segments once the searches still running on them are done.
   */
  void expungeDeletes() throws IOException {
    withRecovery(
        "cannot expunge the keyword index",
        () -> {
          current.writer().forceMergeDeletes(true);
          return null;
        });
    commitAndRelease();
  }

  /**
   * Merges the small segments of the current writer ({@link QuietMerges}) and waits for it; runs
   * off the index thread, so that writes go on meanwhile (a writer reopened meanwhile aborts it).
   * The merged segments are searched after the next {@link #refresh()}.
   *
   * @return whether the writer now has changes to commit ({@link QuietMerges#mergeSmallSegments})
   */
  boolean mergeSmallSegments() throws IOException {
    ensureOpen();
    return QuietMerges.mergeSmallSegments(current.writer());
  }

  /**
   * Commits, makes the index searchable and deletes the files no commit or searcher needs (those of
   * merged segments once the searches on them are done).
   */
  void commitAndRelease() throws IOException {
    commit();
    withRecovery(
        "cannot refresh the keyword index",
        () -> {
          current.searchers().maybeRefreshBlocking();
          current.writer().deleteUnusedFiles();
          return null;
        });
  }

  /** Commits; a writer that failed for good is reopened and the commit retried. */
  void commit() throws IOException {
    withRecovery(
        "cannot commit the keyword index",
        () -> {
          IndexWriter writer = current.writer();
          writer.setLiveCommitData(Map.of(ANALYZER_KEY, version).entrySet());
          writer.commit();
          return null;
        });
    uncommitted.clear();
    dirty = false;
    lastCommitNanos = System.nanoTime();
  }

  /** Closes the searchers, the writer (committing) and the directory; later work fails. */
  void close() throws IOException {
    closed = true;
    Writer writer = current;
    try {
      writer.searchers().close();
      writer.writer().close();
    } finally {
      directory.close();
    }
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

  private static void deleteContents(Path dir) throws IOException {
    // the lock file stays: deleting it would let a second writer lock a new file
    FileTrees.deleteContents(
        dir, file -> file.getFileName().toString().equals(IndexWriter.WRITE_LOCK_NAME));
  }
}
