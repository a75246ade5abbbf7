package dev.memstack.host.proof;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedSetDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * What the Lucene indexes under a data dir still hold, read through Lucene itself rather than
 * grepped: stored fields are compressed in blocks (LZ4), so a string missing from the bytes of a
 * segment file may still be in it. Every index (a folder with a {@code segments_N} file) is opened
 * read-only at its last commit, and every term, stored value and doc value of every document,
 * deleted or live, is decoded.
 */
final class LuceneTraces {

  /** One index and what it holds. */
  record Index(Path dir, int maxDoc, int numDocs, List<String> traces) {}

  private LuceneTraces() {}

  /** Every index under {@code dataDir}, searched for {@code needles}. */
  static List<Index> under(Path dataDir, List<String> needles) {
    List<Index> indexes = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(dataDir)) {
      for (Path dir : walk.filter(Files::isDirectory).toList()) {
        if (isIndex(dir)) {
          indexes.add(inspect(dir, needles));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return indexes;
  }

  private static boolean isIndex(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.anyMatch(f -> f.getFileName().toString().startsWith("segments_"));
    }
  }

  private static Index inspect(Path dir, List<String> needles) throws IOException {
    List<String> traces = new ArrayList<>();
    try (FSDirectory directory = FSDirectory.open(dir);
        DirectoryReader reader = DirectoryReader.open(directory)) {
      for (LeafReaderContext leaf : reader.leaves()) {
        LeafReader segment = leaf.reader();
        for (FieldInfo field : segment.getFieldInfos()) {
          terms(segment.terms(field.name), field.name, needles, traces);
          docValues(segment, field, needles, traces);
        }
        storedFields(segment, needles, traces);
      }
      return new Index(dir, reader.maxDoc(), reader.numDocs(), traces);
    }
  }

  private static void terms(Terms terms, String field, List<String> needles, List<String> traces)
      throws IOException {
    if (terms == null) {
      return;
    }
    TermsEnum each = terms.iterator();
    for (BytesRef term = each.next(); term != null; term = each.next()) {
      note("term of " + field, term, needles, traces);
    }
  }

  /** Every document's stored values, deleted documents included (no live-docs filter). */
  private static void storedFields(LeafReader segment, List<String> needles, List<String> traces)
      throws IOException {
    StoredFields stored = segment.storedFields();
    for (int doc = 0; doc < segment.maxDoc(); doc++) {
      for (IndexableField value : stored.document(doc).getFields()) {
        BytesRef bytes =
            value.binaryValue() != null
                ? value.binaryValue()
                : value.stringValue() != null ? new BytesRef(value.stringValue()) : null;
        if (bytes != null) {
          note("stored " + value.name() + " of doc " + doc, bytes, needles, traces);
        }
      }
    }
  }

  private static void docValues(
      LeafReader segment, FieldInfo field, List<String> needles, List<String> traces)
      throws IOException {
    String where = "doc value of " + field.name;
    switch (field.getDocValuesType()) {
      case BINARY -> {
        BinaryDocValues values = segment.getBinaryDocValues(field.name);
        while (values.nextDoc() != DocIdSetIterator.NO_MORE_DOCS) {
          note(where, values.binaryValue(), needles, traces);
        }
      }
      case SORTED -> {
        SortedDocValues values = segment.getSortedDocValues(field.name);
        for (int ord = 0; ord < values.getValueCount(); ord++) {
          note(where, values.lookupOrd(ord), needles, traces);
        }
      }
      case SORTED_SET -> {
        SortedSetDocValues values = segment.getSortedSetDocValues(field.name);
        for (long ord = 0; ord < values.getValueCount(); ord++) {
          note(where, values.lookupOrd(ord), needles, traces);
        }
      }
      default -> {
        // numeric values hold no text
      }
    }
  }

  private static void note(String where, BytesRef bytes, List<String> needles, List<String> into) {
    String text = new String(bytes.bytes, bytes.offset, bytes.length, StandardCharsets.UTF_8);
    for (String needle : needles) {
      if (text.contains(needle)) {
        into.add(where + " holds " + needle);
      }
    }
  }
}
