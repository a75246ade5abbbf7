package dev.memstack.builtin.search;

import dev.memstack.builtin.search.Paragraphs.Chunk;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
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
import org.apache.lucene.util.BytesRef;

/**
 * The keyword index's schema: the fields of a file's documents (one record of its size and
 * modification time, one document per paragraph), and the hit data kept beside each paragraph.
 */
final class IndexDocuments {

  static final String F_KEY = "key";
  static final String F_KIND = "kind";
  static final String F_BUCKET = "bucket";
  static final String F_TEXT = "text";
  static final String F_CLASS = "class";
  static final String CLASS_CORE = "core";
  static final String F_HIT = "hit";
  static final String F_SIZE = "size";
  static final String F_MTIME = "mtime";
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

  /** One paragraph of a file: its text, hit data, and weight class (core files or the others). */
  static Document chunk(
      Bucket bucket,
      String key,
      WorkspacePath path,
      Chunk chunk,
      Instant updateTime,
      boolean core) {
    Document doc = base(bucket, key, KIND_CHUNK);
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

  /** The hit data of paragraph {@code doc}, in the order of {@link #encodeHit}. */
  static String[] storedHit(List<LeafReaderContext> leaves, int doc) throws IOException {
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    BinaryDocValues values = leaf.reader().getBinaryDocValues(F_HIT);
    if (values == null || !values.advanceExact(doc - leaf.docBase)) {
      throw new IOException("index entry " + doc + " has no hit data");
    }
    return values.binaryValue().utf8ToString().split("\0", 8);
  }
}
