package dev.memstack.vector.store;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The reads of a {@link MemoryVectorStore} that one object of the store (its search side) carries
 * out ({@link DelegatingStore}). What each method promises is said on {@link MemoryVectorStore}.
 */
public interface StoreReads {

  /** See {@link MemoryVectorStore#vectorSearch}. */
  List<Document> vectorSearch(
      float[] queryVector, Filter.Expression filter, int topK, double threshold);

  /** See {@link MemoryVectorStore#keywordSearch}. */
  List<Document> keywordSearch(String query, Filter.Expression filter, int topK);

  /** See {@link MemoryVectorStore#vectors}. */
  Map<String, float[]> vectors(Collection<String> ids);

  /** See {@link MemoryVectorStore#get}. */
  Optional<Document> get(String id);

  /** See {@link MemoryVectorStore#existingIds}. */
  Set<String> existingIds(Collection<String> ids);

  /** See {@link MemoryVectorStore#info}. */
  MemoryVectorStore.StoreInfo info();
}
