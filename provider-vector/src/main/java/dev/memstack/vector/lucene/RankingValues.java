package dev.memstack.vector.lucene;

import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryVectorStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.lucene.store.ByteArrayDataInput;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.util.BytesRef;

/**
 * The {@value LuceneRecords#RANKING} doc value of a record: its id and {@link
 * MemoryVectorStore#RANKING_KEYS}, each a key, a type byte and the value, read back with the types
 * the stored fields give ({@link LuceneRecords#toSpring}: whole numbers as {@code Long}). A record
 * with a ranking value of another type (or a non-finite number) gets no doc value, so its hits are
 * read from the stored fields and can never differ from them.
 */
final class RankingValues {

  private static final byte STRING = 's';
  private static final byte LONG = 'l';
  private static final byte DOUBLE = 'd';
  private static final byte BOOLEAN = 'b';

  private RankingValues() {}

  /** The encoded id and ranking keys; {@code null} when a value has a type not encoded here. */
  static BytesRef encode(MemoryRecord record) {
    ByteBuffersDataOutput out = new ByteBuffersDataOutput();
    try {
      out.writeString(record.id());
      Map<String, Object> metadata = record.metadata();
      for (String key : MemoryVectorStore.RANKING_KEYS) {
        Object value = metadata.get(key);
        if (value != null && !write(out, key, value)) {
          return null;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in memory: does not happen
    }
    return new BytesRef(out.toArrayCopy());
  }

  private static boolean write(ByteBuffersDataOutput out, String key, Object value)
      throws IOException {
    if (value instanceof String s) {
      out.writeString(key);
      out.writeByte(STRING);
      out.writeString(s);
    } else if (value instanceof Long || value instanceof Integer || value instanceof Short) {
      out.writeString(key);
      out.writeByte(LONG);
      out.writeLong(((Number) value).longValue());
    } else if (value instanceof Double d && Double.isFinite(d)) {
      out.writeString(key);
      out.writeByte(DOUBLE);
      out.writeLong(Double.doubleToRawLongBits(d));
    } else if (value instanceof Boolean b) {
      out.writeString(key);
      out.writeByte(BOOLEAN);
      out.writeByte((byte) (b ? 1 : 0));
    } else {
      return false;
    }
    return true;
  }

  /** The hit of an encoded doc value, with its locator. */
  static MemoryVectorStore.Hit decode(BytesRef bytes, Double score, Object locator)
      throws IOException {
    ByteArrayDataInput in = new ByteArrayDataInput(bytes.bytes, bytes.offset, bytes.length);
    String id = in.readString();
    Map<String, Object> metadata = new LinkedHashMap<>();
    while (!in.eof()) {
      String key = in.readString();
      byte type = in.readByte();
      Object value =
          switch (type) {
            case STRING -> in.readString();
            case LONG -> in.readLong();
            case DOUBLE -> Double.longBitsToDouble(in.readLong());
            case BOOLEAN -> in.readByte() != 0;
            default -> throw new IllegalStateException("ranking doc value of type " + type);
          };
      metadata.put(key, value);
    }
    return new MemoryVectorStore.Hit(id, score, metadata, null, locator);
  }
}
