package dev.memstack.vector.lucene;

import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.LongField;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSelector;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The query side of the embedded store: vector kNN search (the filter as a pre-filter of a {@link
 * KnnFloatVectorQuery} with at least {@link LuceneMemoryVectorStore#MIN_CANDIDATES} candidates),
 * BM25 keyword search, lookups by id, listing newest first, counts and the store info. Every read
 * goes through {@link LuceneIndex#read}; filters become queries in {@link LuceneFilterQueries}.
 */
final class LuceneSearches {

  private static final int MAX_KEYWORD_TERMS = 256;

  private final LuceneIndex index;

  LuceneSearches(LuceneIndex index) {
    this.index = index;
  }

  List<Document> vectorSearch(
      float[] queryVector, Filter.Expression filter, int topK, double threshold) {
    StoreEmbedder embedder = index.embedder();
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
    return index.read(
        (searcher, ix) -> {
          int candidates = Math.max(topK, LuceneMemoryVectorStore.MIN_CANDIDATES);
          TopDocs top =
              searcher.search(
                  new KnnFloatVectorQuery(LuceneRecords.VECTOR, unit, candidates, filterQuery),
                  topK);
          List<Document> out = new ArrayList<>();
          StoredFields fields = searcher.storedFields();
          for (ScoreDoc hit : top.scoreDocs) {
            // DOT_PRODUCT scores are (1 + cos) / 2
            double cosine = 2.0 * hit.score - 1.0;
            if (cosine < threshold) {
              break;
            }
            out.add(LuceneRecords.toSpring(fields.document(hit.doc), ix.modelId, cosine));
          }
          return out;
        });
  }

  List<Document> keywordSearch(String query, Filter.Expression filter, int topK) {
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
    return index.read(
        (searcher, ix) -> {
          TopDocs top = searcher.search(full, topK);
          List<Document> out = new ArrayList<>();
          StoredFields fields = searcher.storedFields();
          for (ScoreDoc hit : top.scoreDocs) {
            out.add(
                LuceneRecords.toSpring(fields.document(hit.doc), ix.modelId, (double) hit.score));
          }
          return out;
        });
  }

  /** The distinct analysed terms of {@code text} as optional clauses; null when there are none. */
  private Query keywordQuery(String text) {
    Set<String> terms = new LinkedHashSet<>();
    try (TokenStream tokens = index.analyzer().tokenStream(LuceneRecords.TEXT, text)) {
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

  Optional<Document> get(String id) {
    index.makeVisible(id);
    return index.read(
        (searcher, ix) -> {
          TopDocs hits = searcher.search(new TermQuery(new Term(MemoryVectorStore.ID, id)), 1);
          if (hits.scoreDocs.length == 0) {
            return Optional.empty();
          }
          return Optional.of(
              LuceneRecords.toSpring(
                  searcher.storedFields().document(hits.scoreDocs[0].doc), ix.modelId, null));
        });
  }

  Set<String> existingIds(Collection<String> ids) {
    return index.read(
        (searcher, ix) -> {
          Set<String> found = new LinkedHashSet<>();
          for (String id : ids) {
            if (index.isInvisible(id)
                || searcher.count(new TermQuery(new Term(MemoryVectorStore.ID, id))) > 0) {
              found.add(id);
            }
          }
          return found;
        });
  }

  List<Document> list(Filter.Expression filter, int offset, int limit) {
    if (offset < 0 || limit < 0) {
      throw new IllegalArgumentException("offset and limit must not be negative");
    }
    if (limit == 0) {
      return List.of();
    }
    Query query = LuceneFilterQueries.of(filter);
    Sort newestFirst =
        new Sort(
            LongField.newSortField(
                MemoryVectorStore.CREATED_AT, true, SortedNumericSelector.Type.MAX),
            new SortField(MemoryVectorStore.ID, SortField.Type.STRING));
    return index.read(
        (searcher, ix) -> {
          int want = (int) Math.min(Integer.MAX_VALUE, (long) offset + limit);
          TopDocs top = searcher.search(query, want, newestFirst);
          List<Document> out = new ArrayList<>();
          StoredFields fields = searcher.storedFields();
          for (int i = offset; i < top.scoreDocs.length; i++) {
            out.add(
                LuceneRecords.toSpring(fields.document(top.scoreDocs[i].doc), ix.modelId, null));
          }
          return out;
        });
  }

  long count(Filter.Expression filter) {
    Query query = filter == null ? new MatchAllDocsQuery() : LuceneFilterQueries.of(filter);
    return index.read((searcher, ix) -> (long) searcher.count(query));
  }

  MemoryVectorStore.StoreInfo info() {
    return index.read(
        (searcher, ix) ->
            new MemoryVectorStore.StoreInfo(
                ix.modelId, ix.dimension, searcher.getIndexReader().numDocs()));
  }
}
