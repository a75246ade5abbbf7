package dev.memstack.vector.lucene;

import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryVectorStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.BytesRef;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Lucene document layout of a memory record: one keyword field per filterable string key (its
 * metadata name), {@code created_at} as a point + doc values + stored long, the text as a BM25
 * field, the unit vector as an HNSW field compared by dot product once the store has a graph
 * ({@link GraphOnDemand}) and as doc values of its little-endian floats ({@value #FLAT_VECTOR})
 * before, extra metadata as stored JSON, and the id with the {@link MemoryVectorStore#RANKING_KEYS}
 * as doc values ({@value #RANKING}), so that ranking a hit reads no stored fields (an index written
 * before has no such doc values: its hits are read from the stored fields); the whole document a
 * hit returns as doc values too ({@link DocumentValues}), and one visibility keyword ({@link
 * VisibilityKeys}).
 */
final class LuceneRecords {

  static final String TEXT = "text";
  static final String VECTOR = "vector";

  /**
   * Binary doc values: the unit vector's floats, little-endian, for a record written while the
   * store has no HNSW graph ({@link GraphOnDemand}); such a record has no {@value #VECTOR} field.
   */
  static final String FLAT_VECTOR = "_vector";

  /**
   * How vectors compare, in either form: the HNSW field's similarity, and what an exact scan of a
   * flat vector scores with ({@link FilteredScan}).
   */
  static final VectorSimilarityFunction SIMILARITY = VectorSimilarityFunction.DOT_PRODUCT;

  static final String EXTRA = "_extra";

  /** Binary doc values: the id and the ranking keys of the record ({@link RankingValues}). */
  static final String RANKING = "_ranking";

  /** One term per string key the record has, for ISNULL filters. */
  static final String HAS = "_has";

  static final List<String> STRING_KEYS =
      List.of(
          MemoryVectorStore.AGENT,
          MemoryVectorStore.OWNER,
          MemoryVectorStore.SCOPE,
          MemoryVectorStore.STATUS,
          MemoryVectorStore.TYPE,
          MemoryVectorStore.CONVERSATION,
          MemoryVectorStore.TURN);

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  private LuceneRecords() {}

  /**
   * The document of {@code record}: its vector in the HNSW field when {@code graph}, else as flat
   * doc values ({@value #FLAT_VECTOR}) that only an exact scan reads.
   */
  static Document toLucene(MemoryRecord record, float[] unitVector, boolean graph) {
    Document doc = new Document();
    doc.add(new StringField(MemoryVectorStore.ID, record.id(), Field.Store.YES));
    doc.add(new SortedDocValuesField(MemoryVectorStore.ID, new BytesRef(record.id())));
    doc.add(new TextField(TEXT, record.text(), Field.Store.YES));
    if (graph) {
      doc.add(new KnnFloatVectorField(VECTOR, unitVector, SIMILARITY));
    } else {
      doc.add(new BinaryDocValuesField(FLAT_VECTOR, encodeVector(unitVector)));
    }
    Map<String, Object> metadata = record.metadata();
    for (String key : STRING_KEYS) {
      Object value = metadata.get(key);
      if (value != null) {
        doc.add(new StringField(key, value.toString(), Field.Store.YES));
        doc.add(new StringField(HAS, key, Field.Store.NO));
      }
    }
    String visibility = VisibilityKeys.of(metadata);
    if (visibility != null) {
      doc.add(new StringField(VisibilityKeys.FIELD, visibility, Field.Store.NO));
    }
    doc.add(
        new LongField(
            MemoryVectorStore.CREATED_AT, record.createdAt().toEpochMilli(), Field.Store.YES));
    String extra = record.extra().isEmpty() ? null : JSON.writeValueAsString(record.extra());
    if (extra != null) {
      doc.add(new StoredField(EXTRA, extra));
    }
    doc.add(new BinaryDocValuesField(DocumentValues.FIELD, DocumentValues.encode(record, extra)));
    BytesRef ranking = RankingValues.encode(record);
    if (ranking != null) {
      doc.add(new BinaryDocValuesField(RANKING, ranking));
    }
    return doc;
  }

  private static Object longIfInteger(Object value) {
    return value instanceof Integer i ? (Object) i.longValue() : value;
  }

  /** The stored fields as a Spring AI document (no score). */
  static org.springframework.ai.document.Document toSpring(
      Document stored, String modelId, Double score) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    for (String key : STRING_KEYS) {
      String value = stored.get(key);
      if (value != null) {
        metadata.put(key, value);
      }
    }
    IndexableField created = stored.getField(MemoryVectorStore.CREATED_AT);
    if (created != null && created.numericValue() != null) {
      metadata.put(MemoryVectorStore.CREATED_AT, created.numericValue().longValue());
    }
    return toSpring(
        stored.get(MemoryVectorStore.ID),
        stored.get(TEXT),
        metadata,
        stored.get(EXTRA),
        modelId,
        score);
  }

  /**
   * A Spring AI document of a record: {@code metadata} holds its string keys and {@code
   * created_at}, in that order; the {@code extra} JSON and the model id are added to it.
   */
  static org.springframework.ai.document.Document toSpring(
      String id,
      String text,
      Map<String, Object> metadata,
      String extra,
      String modelId,
      Double score) {
    if (extra != null) {
      Map<String, Object> values = JSON.readValue(extra, MAP);
      values.forEach((key, value) -> metadata.put(key, longIfInteger(value)));
    }
    metadata.put(MemoryVectorStore.MODEL, modelId);
    return org.springframework.ai.document.Document.builder()
        .id(id)
        .text(text)
        .metadata(metadata)
        .score(score)
        .build();
  }

  /** The unit vector stored for document {@code docId} of {@code searcher}, in either form. */
  static float[] storedVector(IndexSearcher searcher, int docId) throws IOException {
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docId, leaves));
    int local = docId - leaf.docBase;
    FloatVectorValues values = leaf.reader().getFloatVectorValues(VECTOR);
    if (values != null && values.advance(local) == local) {
      return values.vectorValue().clone();
    }
    BinaryDocValues flat = leaf.reader().getBinaryDocValues(FLAT_VECTOR);
    if (flat != null && flat.advanceExact(local)) {
      BytesRef bytes = flat.binaryValue();
      float[] vector = new float[bytes.length / Float.BYTES];
      decodeVector(bytes, vector);
      return vector;
    }
    throw new IllegalStateException("embedded vector store: document without a vector");
  }

  /** The floats of {@code vector}, little-endian, as the HNSW field's flat file keeps them. */
  static BytesRef encodeVector(float[] vector) {
    ByteBuffer buffer = ByteBuffer.allocate(vector.length * Float.BYTES);
    buffer.order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().put(vector);
    return new BytesRef(buffer.array());
  }

  /** Decodes {@link #encodeVector} bytes into {@code into}, whose length they must match. */
  static void decodeVector(BytesRef bytes, float[] into) {
    if (bytes.length != into.length * Float.BYTES) {
      throw new IllegalStateException(
          "embedded vector store: a stored vector of "
              + bytes.length / Float.BYTES
              + " dimensions, the store holds "
              + into.length);
    }
    ByteBuffer.wrap(bytes.bytes, bytes.offset, bytes.length)
        .order(ByteOrder.LITTLE_ENDIAN)
        .asFloatBuffer()
        .get(into);
  }
}
