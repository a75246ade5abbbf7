package dev.memstack.vector.lucene;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;

/**
 * The documents of each {@link VisibilityKeys visibility key} of a segment, held in memory: a
 * search looks its three keys up in a map instead of in the terms dictionary of every segment
 * (which a profile put at a sixth of an owner-filtered search). Built once per segment on first use
 * (every term of the one field with its postings: four bytes a document) and dropped when the
 * segment is closed. A segment where some document has no key (written before the keys existed)
 * gets no map: the filter is answered the old way there.
 */
final class VisibilityPostings {

  private static final int[] NONE = new int[0];

  /** By segment core: the key's documents, or {@link #UNKEYED}. */
  private static final Map<Object, Map<String, int[]>> SEGMENTS = new ConcurrentHashMap<>();

  private static final Map<String, int[]> UNKEYED = Map.of();

  private VisibilityPostings() {}

  /**
   * The documents of the segment holding one of {@code keys}, in order (deleted ones included);
   * {@code null} when some document of the segment has no key.
   */
  static int[] docs(LeafReader reader, List<String> keys) throws IOException {
    Map<String, int[]> postings = postings(reader);
    if (postings == UNKEYED) {
      return null;
    }
    int[][] lists = new int[keys.size()][];
    int total = 0;
    for (int i = 0; i < lists.length; i++) {
      lists[i] = postings.getOrDefault(keys.get(i), NONE);
      total += lists[i].length;
    }
    return union(lists, total);
  }

  private static Map<String, int[]> postings(LeafReader reader) throws IOException {
    IndexReader.CacheHelper helper = reader.getCoreCacheHelper();
    if (helper == null) {
      return build(reader);
    }
    Object core = helper.getKey();
    Map<String, int[]> postings = SEGMENTS.get(core);
    if (postings != null) {
      return postings;
    }
    try {
      postings =
          SEGMENTS.computeIfAbsent(
              core,
              key -> {
                try {
                  return build(reader);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    helper.addClosedListener(SEGMENTS::remove);
    return postings;
  }

  private static Map<String, int[]> build(LeafReader reader) throws IOException {
    Terms terms = reader.terms(VisibilityKeys.FIELD);
    if (terms == null || terms.getDocCount() != reader.maxDoc()) {
      return UNKEYED;
    }
    Map<String, int[]> postings = new HashMap<>();
    TermsEnum keys = terms.iterator();
    PostingsEnum docs = null;
    for (var key = keys.next(); key != null; key = keys.next()) {
      int[] list = new int[keys.docFreq()];
      int n = 0;
      docs = keys.postings(docs, PostingsEnum.NONE);
      for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
        if (n == list.length) {
          list = java.util.Arrays.copyOf(list, n * 2 + 1);
        }
        list[n++] = doc;
      }
      postings.put(key.utf8ToString(), n == list.length ? list : java.util.Arrays.copyOf(list, n));
    }
    return postings;
  }

  /** The sorted union of sorted, disjoint lists (a document has one key). */
  private static int[] union(int[][] lists, int total) {
    int nonEmpty = 0;
    int[] only = NONE;
    for (int[] list : lists) {
      if (list.length > 0) {
        nonEmpty++;
        only = list;
      }
    }
    if (nonEmpty <= 1) {
      return only;
    }
    int[] out = new int[total];
    int[] at = new int[lists.length];
    for (int n = 0; n < total; n++) {
      int best = -1;
      for (int i = 0; i < lists.length; i++) {
        if (at[i] < lists[i].length && (best < 0 || lists[i][at[i]] < lists[best][at[best]])) {
          best = i;
        }
      }
      out[n] = lists[best][at[best]++];
    }
    return out;
  }

  /** Iterates a sorted array of documents. */
  static DocIdSetIterator iterator(int[] docs) {
    return new DocIdSetIterator() {
      private int index = -1;
      private int doc = -1;

      @Override
      public int docID() {
        return doc;
      }

      @Override
      public int nextDoc() {
        index++;
        doc = index < docs.length ? docs[index] : NO_MORE_DOCS;
        return doc;
      }

      @Override
      public int advance(int target) {
        int found =
            java.util.Arrays.binarySearch(docs, Math.max(index + 1, 0), docs.length, target);
        index = found >= 0 ? found : -found - 1;
        doc = index < docs.length ? docs[index] : NO_MORE_DOCS;
        return doc;
      }

      @Override
      public long cost() {
        return docs.length;
      }
    };
  }
}
