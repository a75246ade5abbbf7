package dev.memstack.vector.lucene;

import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryVectorStore;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteArrayDataInput;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.util.BytesRef;

/**
 * The {@value #FIELD} doc value of a record: what {@link LuceneRecords#toSpring} reads from the
 * stored fields (id, text, the string keys, {@code created_at} and the extra metadata as JSON),
 * uncompressed. Stored fields are decompressed a block at a time (LZ4, several kilobytes for a
 * record of a few hundred bytes), which a profile of owner-filtered searches put at a sixth of
 * their time; a doc value is read where it lies. A document without it (written before) is read
 * from its stored fields, so both give the same document.
 */
final class DocumentValues {

  static final String FIELD = "_document";

  private DocumentValues() {}

  /** The encoded document of {@code record}. */
  static BytesRef encode(MemoryRecord record, String extraJson) {
    ByteBuffersDataOutput out = new ByteBuffersDataOutput();
    out.writeString(record.id());
    out.writeString(record.text());
    Map<String, Object> metadata = record.metadata();
    for (String key : LuceneRecords.STRING_KEYS) {
      Object value = metadata.get(key);
      out.writeByte((byte) (value == null ? 0 : 1));
      if (value != null) {
        out.writeString(value.toString());
      }
    }
    out.writeLong(record.createdAt().toEpochMilli());
    out.writeByte((byte) (extraJson == null ? 0 : 1));
    if (extraJson != null) {
      out.writeString(extraJson);
    }
    return new BytesRef(out.toArrayCopy());
  }

  /** Document {@code docId} of {@code searcher} as a Spring AI document with {@code score}. */
  static org.springframework.ai.document.Document read(
      IndexSearcher searcher, int docId, String modelId, Double score) throws IOException {
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docId, leaves));
    return read(leaf.reader(), docId - leaf.docBase, modelId, score);
  }

  /** Document {@code doc} of the segment {@code reader}, from its doc value if it has one. */
  static org.springframework.ai.document.Document read(
      LeafReader reader, int doc, String modelId, Double score) throws IOException {
    BinaryDocValues values = reader.getBinaryDocValues(FIELD);
    if (values != null && values.advanceExact(doc)) {
      return decode(values.binaryValue(), modelId, score);
    }
    return LuceneRecords.toSpring(reader.storedFields().document(doc), modelId, score);
  }

  private static org.springframework.ai.document.Document decode(
      BytesRef bytes, String modelId, Double score) throws IOException {
    ByteArrayDataInput in = new ByteArrayDataInput(bytes.bytes, bytes.offset, bytes.length);
    String id = in.readString();
    String text = in.readString();
    Map<String, Object> metadata = new LinkedHashMap<>();
    for (String key : LuceneRecords.STRING_KEYS) {
      if (in.readByte() != 0) {
        metadata.put(key, in.readString());
      }
    }
    metadata.put(MemoryVectorStore.CREATED_AT, in.readLong());
    String extra = in.readByte() != 0 ? in.readString() : null;
    return LuceneRecords.toSpring(id, text, metadata, extra, modelId, score);
  }
}
