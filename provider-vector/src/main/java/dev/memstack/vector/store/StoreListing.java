package dev.memstack.vector.store;

import java.util.List;
import java.util.Map;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The administration reads of a {@link MemoryVectorStore} that one object of the store carries out
 * ({@link DelegatingStore.Parts#listing()}): pages newest first, counts, counts by value and the
 * owners of an agent. What each method promises is said on {@link MemoryVectorStore}.
 */
public interface StoreListing {

  /** See {@link MemoryVectorStore#list(Filter.Expression, String, int, int)}. */
  List<Document> list(Filter.Expression filter, String text, int offset, int limit);

  /** See {@link MemoryVectorStore#count(Filter.Expression, String)}. */
  long count(Filter.Expression filter, String text);

  /** See {@link MemoryVectorStore#countBy}. */
  Map<String, Long> countBy(String key, Filter.Expression filter, String text);

  /** See {@link MemoryVectorStore#owners}. */
  MemoryVectorStore.OwnerPage owners(
      String agent, String prefix, String contains, int offset, int limit);
}
