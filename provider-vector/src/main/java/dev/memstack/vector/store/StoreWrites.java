package dev.memstack.vector.store;

import dev.memstack.spi.OwnerKey;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The writes of a {@link MemoryVectorStore} that one object of the store (its write side) carries
 * out: deletes, metadata changes, feedback counts and trust. A store that has such an object
 * implements {@link DelegatingStore} and names it; the store's methods then hand each call on
 * unchanged. What each method promises is said on {@link MemoryVectorStore}.
 */
public interface StoreWrites {

  /** See {@link MemoryVectorStore#delete(List)}. */
  void delete(List<String> ids);

  /** See {@link MemoryVectorStore#delete(Filter.Expression)}. */
  void delete(Filter.Expression filter);

  /** See {@link MemoryVectorStore#updateMetadata}. */
  boolean updateMetadata(String id, Map<String, Object> changes);

  /**
   * See {@link MemoryVectorStore#addTrust}; {@link DelegatingStore} has checked the owner and the
   * change and passes the ids without repeats, never none.
   */
  Map<String, Trust> addTrust(OwnerKey owner, Collection<String> distinctIds, TrustChange change);

  /** See {@link MemoryVectorStore#trust}. */
  Map<String, Trust> trust(OwnerKey owner, Collection<String> ids);

  /** See {@link MemoryVectorStore#hide}. */
  boolean hide(OwnerKey owner, String id, boolean hidden);

  /** See {@link MemoryVectorStore#deleteFeedback}. */
  long deleteFeedback(OwnerKey owner);
}
