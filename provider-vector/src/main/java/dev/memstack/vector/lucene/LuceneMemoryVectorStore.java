package dev.memstack.vector.lucene;

import dev.memstack.spi.OwnerKey;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.ModelMismatchException;
import dev.memstack.vector.store.StoreEmbedder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongField;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.IOUtils;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The embedded, durable memory store: an Apache Lucene 9.12 index in a directory of its own.
 * Vectors (unit length, dot product = cosine) live in an HNSW field, the text in a BM25 field
 * (English analyzer with {@link #STOP_WORDS}: function words and "user"/"assistant"),
 * agent/owner/scope/status/type/conversation/turn in keyword fields and {@code created_at} in a
 * point + doc-values field, so filters are index lookups. A filtered vector search is a {@link
 * KnnFloatVectorQuery} with the filter as a pre-filter and at least {@value #MIN_CANDIDATES}
 * candidates: Lucene scans a filter of up to that many records (an owner's) exactly and walks the
 * graph only for larger ones, so an owner's recall does not depend on other owners' records.
 *
 * <p>One {@link IndexWriter}, readers through a {@link SearcherManager} (near-real-time: a write is
 * searchable when its call returns). Durability: every {@code add} batch is appended to a {@link
 * Translog} and forced to disk before the call returns, and so is a metadata update (logged as an
 * upsert with the stored vector); deletes commit the index at once. The index is committed when the
 * log holds {@value #COMMIT_EVERY_RECORDS} records or is older than {@value #COMMIT_EVERY_SECONDS}
 * s, and on close; on open the log named in the last commit is replayed. So an acknowledged write
 * survives a crash. The embedding model id and dimension are kept in the commit user data. Layout:
 * {@code <root>/CURRENT} names the live index directory ({@code <root>/index-<n>}, with its log
 * {@code <root>/index-<n>.translog-<generation>}); {@link #reembed()} builds {@code index-<n+1>}
 * from the stored texts and switches {@code CURRENT} atomically, so a crash mid-way leaves the old
 * index in force. A second process opening the same root fails on Lucene's write lock. Feedback
 * counts live beside the index in {@code <root>/feedback.jsonl} ({@link FeedbackCounts}), not in
 * the documents.
 */
public final class LuceneMemoryVectorStore implements MemoryVectorStore {

  /** The least number of HNSW candidates a vector search asks for (its ef). */
  public static final int MIN_CANDIDATES = 100;

  static final int COMMIT_EVERY_RECORDS = 20_000;
  static final int COMMIT_EVERY_SECONDS = 60;

  private static final String MODEL_KEY = "memstack.model";
  private static final String DIMENSION_KEY = "memstack.dimension";
  private static final String FORMAT_KEY = "memstack.format";
  private static final String TRANSLOG_KEY = "memstack.translog";
  private static final String FORMAT = "1";
  private static final String CURRENT = "CURRENT";
  private static final int MAX_KEYWORD_TERMS = 256;
  private static final int REEMBED_BATCH = 256;

  private final Path root;
  private final StoreEmbedder embedder;
  private final Analyzer analyzer = newAnalyzer();

  /** Held shared by every operation, exclusively to swap or close the index. */
  private final ReentrantReadWriteLock state = new ReentrantReadWriteLock();

  /** Serialises writes (one batch at a time). */
  private final ReentrantLock writes = new ReentrantLock();

  private Index index;
  private volatile boolean closed;

  /** Feedback counts per owner, beside the index; changed under {@link #writes}. */
  private FeedbackCounts feedback;

  /** How long a write of {@link #addBatch} may stay invisible to searches. */
  static final long BATCH_VISIBILITY_MILLIS = 1_000;

  /** Ids written by {@link #addBatch} since the last refresh; guarded by {@link #writes}. */
  private final Set<String> invisible = ConcurrentHashMap.newKeySet();

  private final AtomicBoolean refreshScheduled = new AtomicBoolean();

  private final ScheduledExecutorService refresher =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "memstack-vector-refresh");
            thread.setDaemon(true);
            return thread;
          });

  /** One open index generation and its write-ahead log. */
  private static final class Index {
    final String name;
    final Directory directory;
    final IndexWriter writer;
    final String modelId;
    final int dimension;
    SearcherManager searchers;
    Translog translog;
    long generation;
    long lastCommitNanos = System.nanoTime();

    Index(String name, Directory directory, IndexWriter writer, String modelId, int dimension) {
      this.name = name;
      this.directory = directory;
      this.writer = writer;
      this.modelId = modelId;
      this.dimension = dimension;
    }
  }

  private LuceneMemoryVectorStore(Path root, StoreEmbedder embedder) {
    this.root = root;
    this.embedder = embedder;
  }

  /**
   * Words that carry no content in questions and chat turns. Lucene's default English stop set is
   * tiny (33 words), so "what", "my", "I", "do" and "have" matched every turn and BM25 hits on them
   * outranked good vector hits; "user" and "assistant" are in every turn record's text.
   */
  public static final List<String> STOP_WORDS =
      List.of(
          "a",
          "about",
          "above",
          "after",
          "again",
          "against",
          "all",
          "am",
          "an",
          "and",
          "any",
          "are",
          "as",
          "at",
          "be",
          "because",
          "been",
          "before",
          "being",
          "below",
          "between",
          "both",
          "but",
          "by",
          "can",
          "could",
          "did",
          "do",
          "does",
          "doing",
          "down",
          "during",
          "each",
          "few",
          "for",
          "from",
          "further",
          "had",
          "has",
          "have",
          "having",
          "he",
          "her",
          "here",
          "hers",
          "herself",
          "him",
          "himself",
          "his",
          "how",
          "i",
          "if",
          "in",
          "into",
          "is",
          "it",
          "its",
          "itself",
          "just",
          "me",
          "more",
          "most",
          "my",
          "myself",
          "no",
          "nor",
          "not",
          "now",
          "of",
          "off",
          "on",
          "once",
          "only",
          "or",
          "other",
          "our",
          "ours",
          "ourselves",
          "out",
          "over",
          "own",
          "same",
          "she",
          "should",
          "so",
          "some",
          "such",
          "than",
          "that",
          "the",
          "their",
          "theirs",
          "them",
          "themselves",
          "then",
          "there",
          "these",
          "they",
          "this",
          "those",
          "through",
          "to",
          "too",
          "under",
          "until",
          "up",
          "very",
          "was",
          "we",
          "were",
          "what",
          "when",
          "where",
          "which",
          "while",
          "who",
          "whom",
          "why",
          "will",
          "with",
          "would",
          "you",
          "your",
          "yours",
          "yourself",
          "yourselves",
          "i'm",
          "i've",
          "i'd",
          "i'll",
          "you're",
          "you've",
          "it's",
          "that's",
          "don't",
          "doesn't",
          "didn't",
          "can't",
          "won't",
          "let's",
          "please",
          "tell",
          "remember",
          "remind",
          "user",
          "assistant");

  private static Analyzer newAnalyzer() {
    return new EnglishAnalyzer(new CharArraySet(STOP_WORDS, true));
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
      store.openCurrent(reembedOnMismatch, reembedKey);
      store.openFeedback();
      return store;
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  private void openCurrent(boolean reembedOnMismatch, String reembedKey) {
    try {
      Files.createDirectories(root);
      Path currentFile = root.resolve(CURRENT);
      String name =
          Files.exists(currentFile)
              ? Files.readString(currentFile, StandardCharsets.UTF_8).trim()
              : "index-1";
      if (!name.matches("index-\\d+")) {
        throw new IllegalStateException(
            "embedded vector store: " + currentFile + " is corrupt (" + name + ")");
      }
      index = openIndex(name);
      // only now, holding the write lock: leftovers of an interrupted re-embedding
      deleteOtherIndexes(name);
      if (!Files.exists(currentFile)) {
        writeCurrent(name);
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
                    return searcher.count(new TermQuery(new Term(ID, id))) > 0;
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

  /** Opens an index generation, replaying its write-ahead log. */
  private Index openIndex(String name) throws IOException {
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
      config.setMergePolicy(merges);
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
    Index ix =
        new Index(
            name,
            directory,
            writer,
            fresh ? embedder.modelId() : userData.get(MODEL_KEY),
            fresh ? embedder.dimension() : Integer.parseInt(userData.get(DIMENSION_KEY)));
    try {
      ix.generation = Long.parseLong(userData.getOrDefault(TRANSLOG_KEY, "1"));
      deleteOldLogs(name, ix.generation);
      Path log = Translog.path(root, name, ix.generation);
      List<Translog.Entry> replay = Translog.read(log);
      for (Translog.Entry entry : replay) {
        if (entry.vector().length != ix.dimension) {
          throw new IllegalStateException(
              "embedded vector store: " + log + " holds a vector of another dimension");
        }
        writer.updateDocument(
            new Term(ID, entry.record().id()),
            LuceneRecords.toLucene(entry.record(), entry.vector()));
      }
      ix.translog = Translog.open(log);
      IOUtils.fsync(root, true);
      if (fresh || !replay.isEmpty()) {
        commit(ix);
      }
      ix.searchers = new SearcherManager(writer, null);
      return ix;
    } catch (IOException | RuntimeException e) {
      closeQuietly(ix);
      throw e;
    }
  }

  private Map<String, String> commitData(Index ix, long translogGeneration) {
    return Map.of(
        MODEL_KEY,
        ix.modelId,
        DIMENSION_KEY,
        Integer.toString(ix.dimension),
        FORMAT_KEY,
        FORMAT,
        TRANSLOG_KEY,
        Long.toString(translogGeneration));
  }

  /** Commits when the log has grown long or old. */
  private void maybeCommit(Index ix) throws IOException {
    if (ix.translog.records() >= COMMIT_EVERY_RECORDS
        || System.nanoTime() - ix.lastCommitNanos > COMMIT_EVERY_SECONDS * 1_000_000_000L) {
      commit(ix);
    }
  }

  /** Commits the index and starts the next log generation (the old log is then garbage). */
  private void commit(Index ix) throws IOException {
    long next = ix.generation + 1;
    ix.writer.setLiveCommitData(commitData(ix, next).entrySet());
    ix.writer.commit();
    Translog old = ix.translog;
    ix.translog = Translog.open(Translog.path(root, ix.name, next));
    IOUtils.fsync(root, true); // the new log's directory entry, before anything is acknowledged
    ix.generation = next;
    if (old != null) {
      old.close();
      Files.deleteIfExists(old.file());
    }
    ix.lastCommitNanos = System.nanoTime();
  }

  /** Points {@code CURRENT} at index {@code name}: written aside, forced, moved into place. */
  private void writeCurrent(String name) throws IOException {
    Path tmp = root.resolve(CURRENT + ".tmp");
    try (FileChannel channel =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      channel.write(ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8)));
      channel.force(true);
    }
    try {
      Files.move(
          tmp,
          root.resolve(CURRENT),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, root.resolve(CURRENT), StandardCopyOption.REPLACE_EXISTING);
    }
    IOUtils.fsync(root, true);
  }

  /** Deletes index directories and logs other than those of {@code keep}. */
  private void deleteOtherIndexes(String keep) throws IOException {
    try (Stream<Path> entries = Files.list(root)) {
      for (Path entry : entries.toList()) {
        String name = entry.getFileName().toString();
        if (name.startsWith("index-") && !name.equals(keep) && !name.startsWith(keep + ".")) {
          if (Files.isDirectory(entry)) {
            deleteTree(entry);
          } else if (name.contains(".translog-")) {
            Files.deleteIfExists(entry);
          }
        }
      }
    }
  }

  /** Deletes the logs of index {@code name} other than generation {@code keep}. */
  private void deleteOldLogs(String name, long keep) throws IOException {
    try (Stream<Path> entries = Files.list(root)) {
      for (Path entry : entries.toList()) {
        String file = entry.getFileName().toString();
        if (file.startsWith(name + ".translog-") && !file.equals(name + ".translog-" + keep)) {
          Files.deleteIfExists(entry);
        }
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  // ---------------------------------------------------------------- writes

  @Override
  public void add(List<org.springframework.ai.document.Document> documents) {
    add(documents, true);
  }

  /**
   * Durable like {@link #add(List)}; the documents become visible to searches within {@link
   * #BATCH_VISIBILITY_MILLIS}, so a stream of batches refreshes the searcher about once a second
   * instead of once a batch (the refresh flushes a segment and reopens readers: measured as more
   * than half of the indexing CPU of turn ingest).
   */
  @Override
  public void addBatch(List<org.springframework.ai.document.Document> documents) {
    add(documents, false);
  }

  private void add(List<org.springframework.ai.document.Document> documents, boolean visibleNow) {
    if (documents.isEmpty()) {
      return;
    }
    List<MemoryRecord> records = new ArrayList<>(documents.size());
    for (org.springframework.ai.document.Document document : documents) {
      records.add(MemoryRecord.fromDocument(document));
    }
    List<float[]> vectors =
        embedder.embedPassages(records.stream().map(MemoryRecord::embeddingText).toList());
    List<Translog.Entry> entries = new ArrayList<>(records.size());
    for (int i = 0; i < records.size(); i++) {
      entries.add(new Translog.Entry(records.get(i), vectors.get(i)));
    }
    write(
        ix -> {
          if (ix.dimension != embedder.dimension()) {
            throw new IllegalStateException("embedded vector store holds another dimension");
          }
          ix.translog.append(entries);
          for (Translog.Entry entry : entries) {
            ix.writer.updateDocument(
                new Term(ID, entry.record().id()),
                LuceneRecords.toLucene(entry.record(), entry.vector()));
          }
          maybeCommit(ix);
          if (!visibleNow) {
            for (Translog.Entry entry : entries) {
              invisible.add(entry.record().id());
            }
          }
        },
        visibleNow);
    if (!visibleNow && refreshScheduled.compareAndSet(false, true)) {
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

  @Override
  public void refresh() {
    write(ix -> {}, true);
  }

  /** Refreshes the searcher when {@code id} was written by a batch it does not see yet. */
  private void makeVisible(String id) {
    if (invisible.contains(id)) {
      refresh();
    }
  }

  @Override
  public void delete(List<String> idList) {
    if (idList.isEmpty()) {
      return;
    }
    Term[] terms = idList.stream().map(id -> new Term(ID, id)).toArray(Term[]::new);
    write(
        ix -> {
          ix.writer.deleteDocuments(terms);
          commit(ix);
          feedback.drop(idList); // a crash before this: the next open drops them
        });
  }

  @Override
  public void delete(Filter.Expression filterExpression) {
    Query query = LuceneFilterQueries.of(filterExpression);
    write(
        ix -> {
          List<String> deleted = feedback.isEmpty() ? List.of() : matchingIds(ix, query);
          ix.writer.deleteDocuments(query);
          commit(ix);
          feedback.drop(deleted);
        });
  }

  /** The ids of every document matching {@code query}, batch writes included. */
  private static List<String> matchingIds(Index ix, Query query) throws IOException {
    ix.searchers.maybeRefreshBlocking();
    IndexSearcher searcher = ix.searchers.acquire();
    try {
      int count = searcher.count(query);
      if (count == 0) {
        return List.of();
      }
      TopDocs hits = searcher.search(query, count);
      StoredFields fields = searcher.storedFields();
      List<String> ids = new ArrayList<>(hits.scoreDocs.length);
      for (ScoreDoc hit : hits.scoreDocs) {
        ids.add(fields.document(hit.doc, Set.of(ID)).get(ID));
      }
      return ids;
    } finally {
      ix.searchers.release(searcher);
    }
  }

  /**
   * Counts are kept in {@link FeedbackCounts} beside the index, so an increment is one appended
   * line, serialised with every other write by the write lock, and no document is rewritten.
   */
  @Override
  public int addFeedback(OwnerKey owner, Collection<String> ids) {
    Objects.requireNonNull(owner, "owner");
    Set<String> distinct = new LinkedHashSet<>(ids);
    if (distinct.isEmpty()) {
      return 0;
    }
    int[] applied = {0};
    write(
        ix -> {
          IndexSearcher searcher = ix.searchers.acquire();
          try {
            List<String> present = new ArrayList<>(distinct.size());
            for (String id : distinct) {
              if (invisible.contains(id) || searcher.count(new TermQuery(new Term(ID, id))) > 0) {
                present.add(id);
              }
            }
            feedback.add(owner.value(), present);
            applied[0] = present.size();
          } finally {
            ix.searchers.release(searcher);
          }
        },
        false);
    return applied[0];
  }

  @Override
  public Map<String, Long> feedback(OwnerKey owner, Collection<String> ids) {
    Objects.requireNonNull(owner, "owner");
    checkOpen();
    return feedback.counts(owner.value(), ids);
  }

  @Override
  public long deleteFeedback(OwnerKey owner) {
    Objects.requireNonNull(owner, "owner");
    long[] removed = {0};
    write(ix -> removed[0] = feedback.forget(owner.value()), false);
    return removed[0];
  }

  @Override
  public boolean updateMetadata(String id, Map<String, Object> changes) {
    if (changes.containsKey(ID) || changes.containsKey(CREATED_AT) || changes.containsKey(MODEL)) {
      throw new IllegalArgumentException("updateMetadata cannot change id, created_at or model");
    }
    makeVisible(id);
    boolean[] found = {false};
    write(
        ix -> {
          IndexSearcher searcher = ix.searchers.acquire();
          try {
            TopDocs hits = searcher.search(new TermQuery(new Term(ID, id)), 1);
            if (hits.scoreDocs.length == 0) {
              return;
            }
            int docId = hits.scoreDocs[0].doc;
            Document stored = searcher.storedFields().document(docId);
            org.springframework.ai.document.Document current =
                LuceneRecords.toSpring(stored, ix.modelId, null);
            Map<String, Object> metadata = new HashMap<>(current.getMetadata());
            metadata.remove(MODEL);
            changes.forEach(
                (key, value) -> {
                  if (value == null) {
                    metadata.remove(key);
                  } else {
                    metadata.put(key, value);
                  }
                });
            MemoryRecord changed =
                MemoryRecord.fromDocument(
                    org.springframework.ai.document.Document.builder()
                        .id(id)
                        .text(current.getText())
                        .metadata(metadata)
                        .build());
            float[] vector = storedVector(searcher, docId);
            // logged like an add (an upsert with the stored vector), not committed: callers such
            // as the nightly decay change many records one by one
            ix.translog.append(List.of(new Translog.Entry(changed, vector)));
            ix.writer.updateDocument(new Term(ID, id), LuceneRecords.toLucene(changed, vector));
            maybeCommit(ix);
            found[0] = true;
          } finally {
            ix.searchers.release(searcher);
          }
        });
    return found[0];
  }

  private static float[] storedVector(IndexSearcher searcher, int docId) throws IOException {
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docId, leaves));
    int local = docId - leaf.docBase;
    FloatVectorValues values = leaf.reader().getFloatVectorValues(LuceneRecords.VECTOR);
    if (values == null || values.advance(local) != local) {
      throw new IllegalStateException("embedded vector store: document without a vector");
    }
    return values.vectorValue().clone();
  }

  @Override
  public long reembed() {
    checkOpen();
    state.writeLock().lock();
    writes.lock();
    try {
      checkOpen();
      Index old = index;
      int next = Integer.parseInt(old.name.substring("index-".length())) + 1;
      String name = "index-" + next;
      Path path = root.resolve(name);
      if (Files.exists(path)) {
        deleteTree(path);
      }
      Files.deleteIfExists(Translog.path(root, name, 1));
      Index fresh = openIndex(name);
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
                count += copyEmbedded(batch, fresh.writer, old.modelId);
                batch.clear();
              }
            }
          }
          count += copyEmbedded(batch, fresh.writer, old.modelId);
        } finally {
          old.searchers.release(searcher);
        }
        commit(fresh);
        fresh.searchers.maybeRefreshBlocking();
      } catch (IOException | RuntimeException e) {
        closeQuietly(fresh);
        deleteTree(path);
        throw e;
      }
      writeCurrent(name);
      index = fresh;
      closeQuietly(old);
      deleteOtherIndexes(name);
      return count;
    } catch (IOException e) {
      throw new UncheckedIOException("embedded vector store: re-embedding failed", e);
    } finally {
      writes.unlock();
      state.writeLock().unlock();
    }
  }

  private long copyEmbedded(List<Document> batch, IndexWriter target, String oldModel)
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
      target.addDocument(LuceneRecords.toLucene(records.get(i), vectors.get(i)));
    }
    return records.size();
  }

  private interface WriteAction {
    void apply(Index index) throws IOException;
  }

  private void write(WriteAction action) {
    write(action, true);
  }

  private void write(WriteAction action, boolean refresh) {
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
    } catch (IOException e) {
      throw new UncheckedIOException("embedded vector store: write failed", e);
    } finally {
      state.readLock().unlock();
    }
  }

  // ---------------------------------------------------------------- reads

  private interface ReadAction<T> {
    T apply(IndexSearcher searcher) throws IOException;
  }

  private <T> T read(ReadAction<T> action) {
    state.readLock().lock();
    try {
      checkOpen();
      SearcherManager searchers = index.searchers;
      IndexSearcher searcher = searchers.acquire();
      try {
        return action.apply(searcher);
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

  @Override
  public List<org.springframework.ai.document.Document> similaritySearch(SearchRequest request) {
    float[] query = embedder.embedQuery(request.getQuery());
    return vectorSearch(
        query, request.getFilterExpression(), request.getTopK(), request.getSimilarityThreshold());
  }

  @Override
  public List<org.springframework.ai.document.Document> vectorSearch(
      float[] queryVector, Filter.Expression filter, int topK, double threshold) {
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
    return read(
        searcher -> {
          int candidates = Math.max(topK, MIN_CANDIDATES);
          TopDocs top =
              searcher.search(
                  new KnnFloatVectorQuery(LuceneRecords.VECTOR, unit, candidates, filterQuery),
                  topK);
          List<org.springframework.ai.document.Document> out = new ArrayList<>();
          StoredFields fields = searcher.storedFields();
          for (ScoreDoc hit : top.scoreDocs) {
            // DOT_PRODUCT scores are (1 + cos) / 2
            double cosine = 2.0 * hit.score - 1.0;
            if (cosine < threshold) {
              break;
            }
            out.add(LuceneRecords.toSpring(fields.document(hit.doc), index.modelId, cosine));
          }
          return out;
        });
  }

  @Override
  public List<org.springframework.ai.document.Document> keywordSearch(
      String query, Filter.Expression filter, int topK) {
    Query text = keywordQuery(query);
    if (text == null || topK < 1) {
      return List.of();
    }
    Query full =
        filter == null
            ? text
            : new BooleanQuery.Builder()
                .add(text, Occur.MUST)
                .add(LuceneFilterQueries.of(filter), Occur.FILTER)
                .build();
    return read(
        searcher -> {
          TopDocs top = searcher.search(full, topK);
          List<org.springframework.ai.document.Document> out = new ArrayList<>();
          StoredFields fields = searcher.storedFields();
          for (ScoreDoc hit : top.scoreDocs) {
            out.add(
                LuceneRecords.toSpring(
                    fields.document(hit.doc), index.modelId, (double) hit.score));
          }
          return out;
        });
  }

  /** The distinct analysed terms of {@code text} as optional clauses; null when there are none. */
  private Query keywordQuery(String text) {
    Set<String> terms = new LinkedHashSet<>();
    try (TokenStream tokens = analyzer.tokenStream(LuceneRecords.TEXT, text)) {
      CharTermAttribute term = tokens.addAttribute(CharTermAttribute.class);
      tokens.reset();
      while (tokens.incrementToken() && terms.size() < MAX_KEYWORD_TERMS) {
        terms.add(term.toString());
      }
      tokens.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
  public Optional<org.springframework.ai.document.Document> get(String id) {
    makeVisible(id);
    return read(
        searcher -> {
          TopDocs hits = searcher.search(new TermQuery(new Term(ID, id)), 1);
          if (hits.scoreDocs.length == 0) {
            return Optional.empty();
          }
          return Optional.of(
              LuceneRecords.toSpring(
                  searcher.storedFields().document(hits.scoreDocs[0].doc), index.modelId, null));
        });
  }

  @Override
  public Set<String> existingIds(Collection<String> ids) {
    return read(
        searcher -> {
          Set<String> found = new LinkedHashSet<>();
          for (String id : ids) {
            if (invisible.contains(id) || searcher.count(new TermQuery(new Term(ID, id))) > 0) {
              found.add(id);
            }
          }
          return found;
        });
  }

  @Override
  public List<org.springframework.ai.document.Document> list(
      Filter.Expression filter, int offset, int limit) {
    if (offset < 0 || limit < 0) {
      throw new IllegalArgumentException("offset and limit must not be negative");
    }
    if (limit == 0) {
      return List.of();
    }
    Query query = LuceneFilterQueries.of(filter);
    Sort newestFirst =
        new Sort(
            LongField.newSortField(CREATED_AT, true, SortedNumericSelector.Type.MAX),
            new SortField(ID, SortField.Type.STRING));
    return read(
        searcher -> {
          int want = (int) Math.min(Integer.MAX_VALUE, (long) offset + limit);
          TopDocs top = searcher.search(query, want, newestFirst);
          List<org.springframework.ai.document.Document> out = new ArrayList<>();
          StoredFields fields = searcher.storedFields();
          for (int i = offset; i < top.scoreDocs.length; i++) {
            out.add(
                LuceneRecords.toSpring(fields.document(top.scoreDocs[i].doc), index.modelId, null));
          }
          return out;
        });
  }

  @Override
  public long count(Filter.Expression filter) {
    Query query = filter == null ? new MatchAllDocsQuery() : LuceneFilterQueries.of(filter);
    return read(searcher -> (long) searcher.count(query));
  }

  @Override
  public StoreInfo info() {
    return read(
        searcher ->
            new StoreInfo(index.modelId, index.dimension, searcher.getIndexReader().numDocs()));
  }

  @Override
  public String getName() {
    return "LuceneMemoryVectorStore";
  }

  /** The directory the store lives in. */
  public Path root() {
    return root;
  }

  /** The commit user data (model id, dimension, format), for diagnostics and tests. */
  public Map<String, String> commitUserData() {
    return read(
        searcher -> {
          Map<String, String> out = new LinkedHashMap<>();
          for (Map.Entry<String, String> e : index.writer.getLiveCommitData()) {
            out.put(e.getKey(), e.getValue());
          }
          return out;
        });
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("embedded vector store is closed");
    }
  }

  @Override
  public void close() {
    state.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      refresher.shutdownNow();
      if (index != null) {
        try {
          if (index.writer.isOpen()) {
            commit(index);
          }
        } catch (IOException | RuntimeException e) {
          // the write-ahead log still holds what the commit would have saved
        }
        closeQuietly(index);
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

  private static void closeQuietly(Index index) {
    try {
      if (index.searchers != null) {
        index.searchers.close();
      }
    } catch (IOException | RuntimeException ignored) {
      // closing anyway
    }
    try {
      if (index.translog != null) {
        index.translog.close();
      }
    } catch (IOException | RuntimeException ignored) {
      // closing anyway
    }
    try {
      index.writer.rollback();
    } catch (IOException | RuntimeException ignored) {
      // closing anyway: rollback drops uncommitted changes, which the log still holds
    }
    try {
      index.directory.close();
    } catch (IOException | RuntimeException ignored) {
      // closing anyway
    }
  }
}
