package dev.memstack.vector.store;

import dev.memstack.spi.OwnerKey;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * A store made of {@link Parts}: a search side, a write side and its administration reads, as both
 * stores are. Every read and write of {@link MemoryVectorStore} is handed on unchanged to one of
 * them, so a store class keeps only opening, closing and what is its own.
 */
public interface DelegatingStore extends MemoryVectorStore {

  /**
   * The sides a store hands its reads and writes to.
   *
   * @param reads the search side
   * @param writes the write side
   * @param listing the administration reads: pages, counts and owners
   */
  record Parts(StoreReads reads, StoreWrites writes, StoreListing listing) {

    public Parts {
      Objects.requireNonNull(reads, "reads");
      Objects.requireNonNull(writes, "writes");
      Objects.requireNonNull(listing, "listing");
    }
  }

  /** The store's parts. */
  Parts parts();

  @Override
  default List<Document> vectorSearch(
      float[] queryVector, Filter.Expression filter, int topK, double threshold) {
    return parts().reads().vectorSearch(queryVector, filter, topK, threshold);
  }

  @Override
  default List<Document> keywordSearch(String query, Filter.Expression filter, int topK) {
    return parts().reads().keywordSearch(query, filter, topK);
  }

  @Override
  default Map<String, float[]> vectors(Collection<String> ids) {
    return parts().reads().vectors(ids);
  }

  @Override
  default Optional<Document> get(String id) {
    return parts().reads().get(id);
  }

  @Override
  default Set<String> existingIds(Collection<String> ids) {
    return parts().reads().existingIds(ids);
  }

  @Override
  default List<Document> list(Filter.Expression filter, int offset, int limit) {
    return parts().listing().list(filter, null, offset, limit);
  }

  @Override
  default long count(Filter.Expression filter) {
    return parts().listing().count(filter, null);
  }

  @Override
  default List<Document> list(Filter.Expression filter, String text, int offset, int limit) {
    return parts().listing().list(filter, text, offset, limit);
  }

  @Override
  default long count(Filter.Expression filter, String text) {
    return parts().listing().count(filter, text);
  }

  @Override
  default Map<String, Long> countBy(String key, Filter.Expression filter, String text) {
    return parts().listing().countBy(key, filter, text);
  }

  @Override
  default OwnerPage owners(String agent, String prefix, String contains, int offset, int limit) {
    return parts().listing().owners(agent, prefix, contains, offset, limit);
  }

  @Override
  default StoreInfo info() {
    return parts().reads().info();
  }

  @Override
  default void delete(List<String> ids) {
    parts().writes().delete(ids);
  }

  @Override
  default void delete(Filter.Expression filter) {
    parts().writes().delete(filter);
  }

  @Override
  default boolean updateMetadata(String id, Map<String, Object> changes) {
    return parts().writes().updateMetadata(id, changes);
  }

  @Override
  default Map<String, Trust> addTrust(OwnerKey owner, Collection<String> ids, TrustChange change) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(change, "change");
    Set<String> distinct = new LinkedHashSet<>(ids);
    return distinct.isEmpty() ? Map.of() : parts().writes().addTrust(owner, distinct, change);
  }

  @Override
  default Map<String, Trust> trust(OwnerKey owner, Collection<String> ids) {
    return parts().writes().trust(owner, ids);
  }

  @Override
  default boolean hide(OwnerKey owner, String id, boolean hidden) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(id, "id");
    return parts().writes().hide(owner, id, hidden);
  }

  @Override
  default long deleteFeedback(OwnerKey owner) {
    return parts().writes().deleteFeedback(owner);
  }
}
