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
 * A store made of a search side ({@link #reads()}), a write side ({@link #writes()}) and its
 * administration reads ({@link #listing()}), as both stores are: every read and write of {@link
 * MemoryVectorStore} is handed on unchanged, so a store class keeps only opening, closing and what
 * is its own.
 */
public interface DelegatingStore extends MemoryVectorStore {

  /** The store's search side. */
  StoreReads reads();

  /** The store's write side. */
  StoreWrites writes();

  /** The store's administration reads: pages, counts and owners. */
  StoreListing listing();

  @Override
  default List<Document> vectorSearch(
      float[] queryVector, Filter.Expression filter, int topK, double threshold) {
    return reads().vectorSearch(queryVector, filter, topK, threshold);
  }

  @Override
  default List<Document> keywordSearch(String query, Filter.Expression filter, int topK) {
    return reads().keywordSearch(query, filter, topK);
  }

  @Override
  default Map<String, float[]> vectors(Collection<String> ids) {
    return reads().vectors(ids);
  }

  @Override
  default Optional<Document> get(String id) {
    return reads().get(id);
  }

  @Override
  default Set<String> existingIds(Collection<String> ids) {
    return reads().existingIds(ids);
  }

  @Override
  default List<Document> list(Filter.Expression filter, int offset, int limit) {
    return listing().list(filter, null, offset, limit);
  }

  @Override
  default long count(Filter.Expression filter) {
    return listing().count(filter, null);
  }

  @Override
  default List<Document> list(Filter.Expression filter, String text, int offset, int limit) {
    return listing().list(filter, text, offset, limit);
  }

  @Override
  default long count(Filter.Expression filter, String text) {
    return listing().count(filter, text);
  }

  @Override
  default Map<String, Long> countBy(String key, Filter.Expression filter, String text) {
    return listing().countBy(key, filter, text);
  }

  @Override
  default OwnerPage owners(String agent, String prefix, String contains, int offset, int limit) {
    return listing().owners(agent, prefix, contains, offset, limit);
  }

  @Override
  default StoreInfo info() {
    return reads().info();
  }

  @Override
  default void delete(List<String> ids) {
    writes().delete(ids);
  }

  @Override
  default void delete(Filter.Expression filter) {
    writes().delete(filter);
  }

  @Override
  default boolean updateMetadata(String id, Map<String, Object> changes) {
    return writes().updateMetadata(id, changes);
  }

  @Override
  default Map<String, Trust> addTrust(OwnerKey owner, Collection<String> ids, TrustChange change) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(change, "change");
    Set<String> distinct = new LinkedHashSet<>(ids);
    return distinct.isEmpty() ? Map.of() : writes().addTrust(owner, distinct, change);
  }

  @Override
  default Map<String, Trust> trust(OwnerKey owner, Collection<String> ids) {
    return writes().trust(owner, ids);
  }

  @Override
  default boolean hide(OwnerKey owner, String id, boolean hidden) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(id, "id");
    return writes().hide(owner, id, hidden);
  }

  @Override
  default long deleteFeedback(OwnerKey owner) {
    return writes().deleteFeedback(owner);
  }
}
