package dev.memstack.builtin.search;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
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

  private final Analyzer analyzer = new WorkspaceAnalyzer();
  private final Directory directory;
  private final IndexWriter writer;
  private final SearcherManager searchers;
  private final int snippetChars;
  private final long commitIntervalNanos;
  private volatile long lastCommitNanos = System.nanoTime();
  private volatile boolean dirty;

  /**
   * Opens (or creates) the index in {@code dir}.
   *
   * @param snippetChars length of hit snippets
   * @param commitInterval least time between two commits caused by writes
   */
  public LuceneKeywordIndex(Path dir, int snippetChars, Duration commitInterval) {
    this.snippetChars = snippetChars;
    this.commitIntervalNanos = commitInterval.toNanos();
    try {
      Files.createDirectories(dir);
      Directory opened = FSDirectory.open(dir);
      IndexWriter openedWriter;
      try {
        openedWriter = openWriter(opened);
      } catch (IOException | RuntimeException e) {
        log.warn("the keyword index in {} cannot be opened ({}); rebuilding it", dir, e.toString());
        opened.close();
        deleteContents(dir);
        opened = FSDirectory.open(dir);
        openedWriter = openWriter(opened);
      }
      this.directory = opened;
      this.writer = openedWriter;
      this.searchers = new SearcherManager(writer, null);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the keyword index in " + dir, e);
    }
  }

  private IndexWriter openWriter(Directory dir) throws IOException {
    IndexWriterConfig config = new IndexWriterConfig(analyzer);
    config.setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
    config.setCommitOnClose(true);
    IndexWriter opened = new IndexWriter(dir, config);
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
    try {
      writer.updateDocuments(new Term(F_KEY, key), docs);
      dirty = true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot index " + key, e);
    }
  }

  @Override
  public void remove(Bucket bucket, WorkspacePath path) {
    removeByKey(KeywordIndex.fileKey(bucket, path));
  }

  @Override
  public void removeByKey(String fileKey) {
    try {
      writer.deleteDocuments(new Term(F_KEY, fileKey));
      dirty = true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + fileKey + " from the index", e);
    }
  }

  @Override
  public Map<String, FileStamp> stamps() {
    Map<String, FileStamp> stamps = new HashMap<>();
    try {
      IndexSearcher searcher = searchers.acquire();
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
        searchers.release(searcher);
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
      IndexSearcher searcher = searchers.acquire();
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
        searchers.release(searcher);
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
    try {
      searchers.maybeRefreshBlocking();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot refresh the keyword index", e);
    }
    maybeCommit();
  }

  private void maybeCommit() {
    if (dirty && System.nanoTime() - lastCommitNanos >= commitIntervalNanos) {
      commit();
    }
  }

  @Override
  public void commit() {
    try {
      dirty = false;
      writer.setLiveCommitData(Map.of(ANALYZER_KEY, WorkspaceAnalyzer.VERSION).entrySet());
      writer.commit();
      lastCommitNanos = System.nanoTime();
    } catch (IOException e) {
      dirty = true;
      throw new UncheckedIOException("cannot commit the keyword index", e);
    }
  }

  @Override
  public void close() {
    try {
      searchers.close();
      writer.close();
      directory.close();
    } catch (IOException e) {
      log.warn("closing the keyword index failed: {}", e.toString());
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
            Files.delete(file);
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
