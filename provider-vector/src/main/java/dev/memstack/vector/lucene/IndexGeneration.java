package dev.memstack.vector.lucene;

import dev.memstack.support.QuietMerges;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.util.IOUtils;

/**
 * One open index generation ({@code <root>/index-<n>}) and its write-ahead log: the {@link
 * IndexWriter}, the {@link SearcherManager}, the {@link Translog} of the current log generation,
 * and the model id and dimension kept in the commit user data. Opening replays the log named in the
 * last commit; {@link #commit()} starts the next log generation. The caller holds the store's locks
 * (see {@link LuceneIndex}); this class takes none.
 */
final class IndexGeneration {

  static final int COMMIT_EVERY_RECORDS = 20_000;
  static final int COMMIT_EVERY_SECONDS = 60;

  private static final String MODEL_KEY = "memstack.model";
  private static final String DIMENSION_KEY = "memstack.dimension";
  private static final String FORMAT_KEY = "memstack.format";
  private static final String TRANSLOG_KEY = "memstack.translog";

  /**
   * Whether the records carry their vectors in the HNSW field ("1") or as flat doc values ("0"):
   * {@link GraphOnDemand}. An index written before the key existed has the graph.
   */
  private static final String GRAPH_KEY = "memstack.graph";

  private static final String FORMAT = "1";

  final Path root;
  final String name;
  final Directory directory;
  final IndexWriter writer;
  final String modelId;
  final int dimension;
  SearcherManager searchers;
  Translog translog;
  long generation;
  long lastCommitNanos = System.nanoTime();

  /**
   * Whether new records get their vectors in the HNSW field ({@link GraphOnDemand}); set once,
   * under the store's write lock, never unset.
   */
  volatile boolean graphed;

  private IndexGeneration(
      Path root,
      String name,
      Directory directory,
      IndexWriter writer,
      String modelId,
      int dimension) {
    this.root = root;
    this.name = name;
    this.directory = directory;
    this.writer = writer;
    this.modelId = modelId;
    this.dimension = dimension;
  }

  /** Opens index generation {@code name} under {@code root}, replaying its write-ahead log. */
  static IndexGeneration open(Path root, String name, Analyzer analyzer, StoreEmbedder embedder)
      throws IOException {
    Path path = root.resolve(name);
    Directory directory = FSDirectory.open(path);
    IndexWriter writer;
    try {
      IndexWriterConfig config = new IndexWriterConfig(analyzer);
      config.setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
      config.setCommitOnClose(false);
      config.setRAMBufferSizeMB(64);
      // Every durable write is made visible at once, which flushes a small segment; packing each
      // into a compound file re-reads and checksums all of it (the largest CPU cost of a write in
      // a profile of turn ingest). Segments stay as plain files, merged segments too.
      config.setUseCompoundFile(false);
      TieredMergePolicy merges = new TieredMergePolicy();
      merges.setNoCFSRatio(0.0);
      // an expunge merges every segment with a deleted document, not only those past 10 % of them
      merges.setForceMergeDeletesPctAllowed(0.0);
      config.setMergePolicy(QuietMerges.policy(merges));
      writer = new IndexWriter(directory, config);
    } catch (LockObtainFailedException e) {
      directory.close();
      throw new IllegalStateException(
          "embedded vector store at " + path + " is in use by another process (write lock held)",
          e);
    } catch (IOException | RuntimeException e) {
      directory.close();
      throw e;
    }
    Map<String, String> userData = new HashMap<>();
    if (writer.getLiveCommitData() != null) {
      writer.getLiveCommitData().forEach(e -> userData.put(e.getKey(), e.getValue()));
    }
    boolean fresh = !userData.containsKey(MODEL_KEY);
    IndexGeneration ix =
        new IndexGeneration(
            root,
            name,
            directory,
            writer,
            fresh ? embedder.modelId() : userData.get(MODEL_KEY),
            fresh ? embedder.dimension() : Integer.parseInt(userData.get(DIMENSION_KEY)));
    try {
      ix.generation = Long.parseLong(userData.getOrDefault(TRANSLOG_KEY, "1"));
      ix.graphed = !fresh && !"0".equals(userData.get(GRAPH_KEY));
      deleteOldLogs(root, name, ix.generation);
      Path log = Translog.path(root, name, ix.generation);
      List<Translog.Entry> replay = Translog.read(log);
      for (Translog.Entry entry : replay) {
        if (entry.vector().length != ix.dimension) {
          throw new IllegalStateException(
              "embedded vector store: " + log + " holds a vector of another dimension");
        }
        writer.updateDocument(
            new Term(MemoryVectorStore.ID, entry.record().id()),
            LuceneRecords.toLucene(entry.record(), entry.vector(), ix.graphed));
      }
      ix.translog = Translog.open(log);
      IOUtils.fsync(root, true);
      if (fresh || !replay.isEmpty()) {
        ix.commit();
      }
      ix.searchers = new SearcherManager(writer, new FilterCaching());
      return ix;
    } catch (IOException | RuntimeException e) {
      ix.closeQuietly();
      throw e;
    }
  }

  private Map<String, String> commitData(long translogGeneration) {
    return Map.of(
        MODEL_KEY,
        modelId,
        DIMENSION_KEY,
        Integer.toString(dimension),
        FORMAT_KEY,
        FORMAT,
        TRANSLOG_KEY,
        Long.toString(translogGeneration),
        GRAPH_KEY,
        graphed ? "1" : "0");
  }

  /** Commits when the log has grown long or old. */
  void maybeCommit() throws IOException {
    if (translog.records() >= COMMIT_EVERY_RECORDS
        || System.nanoTime() - lastCommitNanos > COMMIT_EVERY_SECONDS * 1_000_000_000L) {
      commit();
    }
  }

  /** Commits the index and starts the next log generation (the old log is then garbage). */
  void commit() throws IOException {
    long next = generation + 1;
    writer.setLiveCommitData(commitData(next).entrySet());
    writer.commit();
    Translog old = translog;
    translog = Translog.open(Translog.path(root, name, next));
    IOUtils.fsync(root, true); // the new log's directory entry, before anything is acknowledged
    generation = next;
    if (old != null) {
      old.close();
      Files.deleteIfExists(old.file());
    }
    lastCommitNanos = System.nanoTime();
  }

  /**
   * Merges every deleted document out of the segments, commits (the default deletion policy keeps
   * only the newest commit point, and the log is rolled) and reopens the searchers, so that the
   * files of the old segments are deleted. The caller holds the store's locks exclusively: no
   * search holds an old reader, which would keep its files.
   */
  void expungeDeletes() throws IOException {
    writer.forceMergeDeletes(true);
    commit();
    searchers.maybeRefreshBlocking();
    writer.deleteUnusedFiles();
  }

  /** Deletes the logs of index {@code name} other than generation {@code keep}. */
  private static void deleteOldLogs(Path root, String name, long keep) throws IOException {
    try (Stream<Path> entries = Files.list(root)) {
      for (Path entry : entries.toList()) {
        String file = entry.getFileName().toString();
        if (file.startsWith(name + ".translog-") && !file.equals(name + ".translog-" + keep)) {
          Files.deleteIfExists(entry);
        }
      }
    }
  }

  /** Closes searchers, log, writer (rolled back) and directory, ignoring failures. */
  void closeQuietly() {
    try {
      if (searchers != null) {
        searchers.close();
      }
    } catch (IOException | RuntimeException ignored) {
      // closing anyway
    }
    try {
      if (translog != null) {
        translog.close();
      }
    } catch (IOException | RuntimeException ignored) {
      // closing anyway
    }
    try {
      writer.rollback();
    } catch (IOException | RuntimeException ignored) {
      // closing anyway: rollback drops uncommitted changes, which the log still holds
    }
    try {
      directory.close();
    } catch (IOException | RuntimeException ignored) {
      // closing anyway
    }
  }
}
