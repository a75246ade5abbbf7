package dev.memstack.builtin.store.files;

import dev.memstack.builtin.search.KeywordTexts;
import dev.memstack.builtin.search.Paragraphs.Chunk;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * The keyword index's schema: the fields of a file's documents (one record of its size and
 * modification time, one document per paragraph), and the hit data kept beside each paragraph.
 */
final class IndexDocuments {

  static final String F_KEY = "key";
  static final String F_KIND = "kind";
  static final String F_BUCKET = "bucket";
  static final String F_TEXT = KeywordTexts.FIELD;
  static final String F_CLASS = "class";
  static final String CLASS_CORE = "core";
  static final String F_HIT = "hit";
  static final String F_SIZE = "size";
  static final String F_MTIME = "mtime";
  static final String F_VECTOR = "vector";
  static final String KIND_CHUNK = "chunk";
  static final String KIND_FILE = "file";

  /** The commit data key of the analyzer version the index was built with. */
  static final String ANALYZER_KEY = "analyzer";

  private IndexDocuments() {}

  /** The term that selects every document of a file. */
  static Term key(String fileKey) {
    return new Term(F_KEY, fileKey);
  }

  /** The record of a file: its key and bucket, size and modification time. */
  static Document file(Bucket bucket, String key, FileStamp stamp) {
    Document file = base(bucket, key, KIND_FILE);
    file.add(new StoredField(F_SIZE, stamp.size()));
    file.add(new StoredField(F_MTIME, stamp.modifiedMillis()));
    return file;
  }

  /**
   * One paragraph of a file: its text, hit data, weight class (core files or the others) and, with
   * the dense view on, its vector ({@code null}: none).
   */
  static Document chunk(
      Bucket bucket,
      String key,
      WorkspacePath path,
      Chunk chunk,
      Instant updateTime,
      boolean core,
      float[] vector) {
    Document doc = base(bucket, key, KIND_CHUNK);
    if (vector != null) {
      doc.add(new BinaryDocValuesField(F_VECTOR, new BytesRef(encodeVector(vector))));
    }
    doc.add(new TextField(F_TEXT, chunk.text(), Field.Store.NO));
    doc.add(
        new BinaryDocValuesField(
            F_HIT, new BytesRef(encodeHit(key, bucket, path, chunk, updateTime))));
    doc.add(new StringField(F_CLASS, core ? CLASS_CORE : "other", Field.Store.NO));
    return doc;
  }

  /** The stamp kept in a file's record. */
  static FileStamp stamp(Document file) {
    return new FileStamp(
        file.getField(F_SIZE).numericValue().longValue(),
        file.getField(F_MTIME).numericValue().longValue());
  }

  private static Document base(Bucket bucket, String key, String kind) {
    Document doc = new Document();
    doc.add(new StringField(F_KEY, key, Field.Store.YES));
    doc.add(new StringField(F_KIND, kind, Field.Store.NO));
    doc.add(new StringField(F_BUCKET, bucket.key(), Field.Store.NO));
    return doc;
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

  /**
   * The vectors of a file's paragraphs in the dense view, by the text that was embedded ({@link
   * DenseView#text}); empty when the file is not indexed or has no vectors.
   */
  static Map<String, float[]> vectorsOf(IndexSearcher searcher, String fileKey) throws IOException {
    Query chunks =
        new BooleanQuery.Builder()
            .add(new TermQuery(key(fileKey)), BooleanClause.Occur.FILTER)
            .add(new TermQuery(new Term(F_KIND, KIND_CHUNK)), BooleanClause.Occur.FILTER)
            .build();
    Map<String, float[]> vectors = new HashMap<>();
    // a write's lookup of one file: not worth the query cache, which would build a bit set of
    // every chunk per segment while the segments change under the writes
    IndexSearcher uncached = new IndexSearcher(searcher.getIndexReader());
    uncached.setQueryCache(null);
    forEachVector(
        uncached,
        chunks,
        (leaf, doc, vector) -> {
          BinaryDocValues hits = leaf.reader().getBinaryDocValues(F_HIT);
          if (hits != null && hits.advanceExact(doc)) {
            String text = hits.binaryValue().utf8ToString().split("\0", 8)[7];
            vectors.put(DenseView.text(text), decodeVector(vector));
          }
        });
    return vectors;
  }

  /** Receives the encoded vector of each live document {@link #forEachVector} visits. */
  interface VectorVisitor {
    /**
     * {@code doc} is the leaf's own document number; {@code vector} is the vector as {@link
     * #encodeVector} wrote it, valid until the next document ({@link #decodeVector} keeps it,
     * {@link #cosine} compares it without decoding: one scan visits thousands of vectors).
     */
    void visit(LeafReaderContext leaf, int doc, BytesRef vector) throws IOException;
  }

  /** Visits the vector of every live document that matches {@code query} and has one. */
  static void forEachVector(IndexSearcher searcher, Query query, VectorVisitor visitor)
      throws IOException {
    Weight weight = searcher.createWeight(searcher.rewrite(query), ScoreMode.COMPLETE_NO_SCORES, 1);
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      Scorer scorer = weight.scorer(leaf);
      BinaryDocValues values = leaf.reader().getBinaryDocValues(F_VECTOR);
      if (scorer == null || values == null) {
        continue;
      }
      Bits live = leaf.reader().getLiveDocs();
      DocIdSetIterator docs = scorer.iterator();
      for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
        if ((live == null || live.get(doc)) && values.advanceExact(doc)) {
          visitor.visit(leaf, doc, values.binaryValue());
        }
      }
    }
  }

  /**
   * The cosine similarity of {@code query} (of Euclidean norm {@code queryNorm}) to the encoded
   * {@code candidate}, read straight from its bytes; {@code NaN} when their lengths differ (another
   * model's vector). Each product is a float product summed in double, as a plain loop over the
   * decoded vector sums it, over four running sums (one chain of dependent additions would bound
   * the loop by the adder's latency).
   */
  static float cosine(float[] query, double queryNorm, BytesRef candidate) {
    if (candidate.length != query.length * Float.BYTES) {
      return Float.NaN;
    }
    byte[] source = candidate.bytes;
    int offset = candidate.offset;
    double dot0 = 0;
    double dot1 = 0;
    double dot2 = 0;
    double dot3 = 0;
    double sq0 = 0;
    double sq1 = 0;
    double sq2 = 0;
    double sq3 = 0;
    int i = 0;
    for (int end = query.length - 3; i < end; i += 4, offset += 4 * Float.BYTES) {
      float c0 = (float) LITTLE_ENDIAN_FLOAT.get(source, offset);
      float c1 = (float) LITTLE_ENDIAN_FLOAT.get(source, offset + Float.BYTES);
      float c2 = (float) LITTLE_ENDIAN_FLOAT.get(source, offset + 2 * Float.BYTES);
      float c3 = (float) LITTLE_ENDIAN_FLOAT.get(source, offset + 3 * Float.BYTES);
      dot0 += query[i] * c0;
      dot1 += query[i + 1] * c1;
      dot2 += query[i + 2] * c2;
      dot3 += query[i + 3] * c3;
      sq0 += c0 * c0;
      sq1 += c1 * c1;
      sq2 += c2 * c2;
      sq3 += c3 * c3;
    }
    for (; i < query.length; i++, offset += Float.BYTES) {
      float c = (float) LITTLE_ENDIAN_FLOAT.get(source, offset);
      dot0 += query[i] * c;
      sq0 += c * c;
    }
    double norms = queryNorm * Math.sqrt((sq0 + sq1) + (sq2 + sq3));
    return norms == 0 ? 0f : (float) (((dot0 + dot1) + (dot2 + dot3)) / norms);
  }

  /** A vector as little-endian float32 bytes. */
  static byte[] encodeVector(float[] vector) {
    ByteBuffer bytes =
        ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    for (float value : vector) {
      bytes.putFloat(value);
    }
    return bytes.array();
  }

  /** The vector {@link #encodeVector} wrote. */
  static float[] decodeVector(BytesRef bytes) {
    float[] vector = new float[bytes.length / Float.BYTES];
    decodeVector(bytes, vector);
    return vector;
  }

  /** Little-endian float32 reads straight from a byte array. */
  private static final VarHandle LITTLE_ENDIAN_FLOAT =
      MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * Decodes the vector {@link #encodeVector} wrote into {@code into} (of its length), with no
   * buffer objects: a dense search decodes every vector of the workspace.
   */
  static void decodeVector(BytesRef bytes, float[] into) {
    byte[] source = bytes.bytes;
    int offset = bytes.offset;
    for (int i = 0; i < into.length; i++) {
      into[i] = (float) LITTLE_ENDIAN_FLOAT.get(source, offset + i * Float.BYTES);
    }
  }

  /**
   * The hit data ({@link #encodeHit}'s fields, in its order) of each paragraph of {@code docs}, by
   * document, read as {@link #readInOrder} reads.
   */
  static Map<Integer, String[]> storedHits(List<LeafReaderContext> leaves, int[] docs)
      throws IOException {
    Map<Integer, String[]> hits =
        readInOrder(leaves, docs, F_HIT, value -> value.utf8ToString().split("\0", 8));
    for (int doc : docs) {
      if (!hits.containsKey(doc)) {
        throw new IOException("index entry " + doc + " has no hit data");
      }
    }
    return hits;
  }

  /**
   * The dense-view vector of each paragraph of {@code docs} that has one, by document, read as
   * {@link #readInOrder} reads.
   */
  static Map<Integer, float[]> storedVectors(List<LeafReaderContext> leaves, int[] docs)
      throws IOException {
    return readInOrder(leaves, docs, F_VECTOR, IndexDocuments::decodeVector);
  }

  /**
   * The binary doc value of {@code field}, decoded, of each document of {@code docs} (top-level
   * numbers) that has one, by document. The documents are read in increasing order, with one
   * iterator a segment: an iterator only moves forward, and getting one costs more than reading a
   * value.
   */
  private static <T> Map<Integer, T> readInOrder(
      List<LeafReaderContext> leaves, int[] docs, String field, Function<BytesRef, T> decode)
      throws IOException {
    int[] sorted = docs.clone();
    Arrays.sort(sorted);
    Map<Integer, T> values = new HashMap<>();
    int leafIndex = -1;
    BinaryDocValues leafValues = null;
    int previous = -1;
    for (int doc : sorted) {
      if (doc == previous) {
        continue;
      }
      previous = doc;
      int index = ReaderUtil.subIndex(doc, leaves);
      LeafReaderContext leaf = leaves.get(index);
      if (index != leafIndex) {
        leafIndex = index;
        leafValues = leaf.reader().getBinaryDocValues(field);
      }
      if (leafValues != null && leafValues.advanceExact(doc - leaf.docBase)) {
        values.put(doc, decode.apply(leafValues.binaryValue()));
      }
    }
    return values;
  }
}
