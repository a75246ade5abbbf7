package dev.memstack.vector.store;

import dev.memstack.spi.OwnerKey;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.VectorStore;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * A Spring AI {@link VectorStore} for memory records, with the fields that isolation depends on
 * (agent, owner, scope, status) stored as real indexed fields rather than inside a JSON blob, so a
 * filtered search is exact within the filter instead of post-filtering an approximate top-k.
 *
 * <p>Documents carry these metadata keys (constants below); {@link #add} requires {@link #AGENT},
 * {@link #SCOPE}, {@link #STATUS}, {@link #TYPE} and {@link #CREATED_AT} (epoch millis, a {@code
 * Long}), and {@link #OWNER} for PERSONAL records ({@link MemoryRecord} builds and checks them).
 * Any other metadata key (string, number or boolean value) is stored and returned but cannot be
 * filtered on. {@link #add} is an upsert by document id. Returned documents carry every stored key
 * plus {@link #MODEL}, the embedding model id of their vector.
 *
 * <p>Filter expressions in {@link org.springframework.ai.vectorstore.SearchRequest}, {@link
 * #vectorSearch}, {@link #keywordSearch}, {@link #list}, {@link #count} and {@link
 * #delete(Filter.Expression)} may use {@code EQ, NE, IN, NIN, AND, OR, NOT, ISNULL, ISNOTNULL} on
 * {@link #ID} and the string keys and {@code EQ, GT, GTE, LT, LTE} on {@link #CREATED_AT}; {@code
 * NE}/{@code NIN} also match records that lack the key. {@link FilterWalker} checks and normalises
 * them, so every store accepts exactly the same filters.
 *
 * <p>Scores: {@code similaritySearch} and {@link #vectorSearch} return the cosine similarity (1 −
 * cosine distance, in [−1, 1]) and compare the threshold against it; {@link #keywordSearch} returns
 * the engine's keyword score (BM25 or full-text rank; only the order is comparable).
 *
 * <p>Feedback counts and trust ({@link #addFeedback}, {@link #feedback}, {@link #addTrust}, {@link
 * #trust}, {@link #hide}, {@link #deleteFeedback}) are kept per owner and record, apart from the
 * records' metadata: a shared record used or marked wrong by many owners carries none of their
 * rows, a returned document shows none of them, and erasing an owner's rows touches no record. A
 * record's rows go with the record when it is deleted and survive an upsert of it ({@link #add} of
 * the same id).
 *
 * <p>Implementations are thread-safe: one writer at a time, many concurrent readers. Vectors are
 * computed by the store from document text through the host's embedder (passages on add, queries on
 * search); the store records the embedding model id and dimension and refuses to open with another
 * model (a {@link ModelMismatchException}) unless it was opened with {@link
 * StoreContext#reembedOnMismatch()}, or until {@link #reembed()} has rebuilt the vectors.
 */
public interface MemoryVectorStore extends VectorStore, AutoCloseable {

  /** The document id (filterable). */
  String ID = "id";

  String AGENT = "agent";
  String OWNER = "owner";
  String SCOPE = "scope";
  String STATUS = "status";
  String TYPE = "type";
  String CONVERSATION = "conversation";
  String TURN = "turn";
  String CREATED_AT = "created_at";

  /** Set by the store on returned documents: the embedding model id of the stored vector. */
  String MODEL = "model";

  /** The keys that filters may use; all but {@link #CREATED_AT} hold strings. */
  Set<String> FILTER_KEYS =
      Set.of(ID, AGENT, OWNER, SCOPE, STATUS, TYPE, CONVERSATION, TURN, CREATED_AT);

  /**
   * Nearest neighbours of an already embedded query vector within the filter, best first, at most
   * {@code topK}, only those with cosine similarity ≥ {@code threshold}. Exact within the filter
   * for small filters (an owner's records); the engine may use its ANN index for large ones.
   *
   * @param queryVector a vector of the store's dimension (need not be normalised)
   * @param filter the filter, {@code null} for all documents
   */
  List<Document> vectorSearch(
      float[] queryVector, Filter.Expression filter, int topK, double threshold);

  /** BM25 (or the engine's full-text ranking) over document text, within the filter. */
  List<Document> keywordSearch(String query, Filter.Expression filter, int topK);

  /**
   * The metadata keys ranking reads ({@link #TURN}, {@link #CREATED_AT}, {@link
   * MemoryRecord#PREVIOUS_TURN} and the lifecycle's {@code importance} and {@code weight}): a
   * {@link Hit} carries at least these of a record's keys.
   */
  Set<String> RANKING_KEYS =
      Set.of(TURN, CREATED_AT, MemoryRecord.PREVIOUS_TURN, "importance", "weight");

  /**
   * One search hit as ranking sees it: the id, the search's score (as in {@link #vectorSearch} and
   * {@link #keywordSearch}), the record's metadata (at least its {@link #RANKING_KEYS}, with the
   * types a returned document has) and, when the store loaded it anyway, the whole document.
   *
   * @param document the whole document, or {@code null}: then {@link #documents} loads it
   * @param locator where the store found the hit, for {@link #documents} (opaque, store-specific;
   *     may be {@code null})
   */
  record Hit(
      String id, Double score, Map<String, Object> metadata, Document document, Object locator) {

    /** A hit of an already loaded document. */
    public static Hit of(Document document) {
      return new Hit(document.getId(), document.getScore(), document.getMetadata(), document, null);
    }
  }

  /**
   * {@link #vectorSearch} as {@link Hit}s, which a store may answer without loading each record's
   * text. The default loads the documents.
   */
  default List<Hit> vectorHits(
      float[] queryVector, Filter.Expression filter, int topK, double threshold) {
    return vectorSearch(queryVector, filter, topK, threshold).stream().map(Hit::of).toList();
  }

  /** {@link #keywordSearch} as {@link Hit}s; the default loads the documents. */
  default List<Hit> keywordHits(String query, Filter.Expression filter, int topK) {
    return keywordSearch(query, filter, topK).stream().map(Hit::of).toList();
  }

  /**
   * The stored documents of {@code hits} of this store, by id (records no longer stored are
   * absent); without a score. The default lists them by an {@code IN} filter on their ids.
   */
  default Map<String, Document> documents(List<Hit> hits) {
    if (hits.isEmpty()) {
      return Map.of();
    }
    List<String> ids = hits.stream().map(Hit::id).toList();
    Map<String, Document> found = new java.util.LinkedHashMap<>();
    for (Document document : list(MemoryFilters.in(ID, ids), 0, ids.size())) {
      found.put(document.getId(), document);
    }
    return found;
  }

  /**
   * The stored vectors of {@code ids} (records without one, or no longer stored, are absent), as
   * the store compares them (a store may keep them normalised). The default is none: the provider
   * then hands its items over without their vectors.
   */
  default Map<String, float[]> vectors(Collection<String> ids) {
    return Map.of();
  }

  /** One document by id. */
  Optional<Document> get(String id);

  /** Which of {@code ids} are stored (cheap; no document is loaded). */
  Set<String> existingIds(Collection<String> ids);

  /**
   * Adds like {@link #add(List)}, durable when it returns, for bulk ingest (a batch of turns): the
   * store may make the documents visible to searches up to a second later rather than at once,
   * which for a search engine is most of the cost of a small write. {@link #existingIds} sees them
   * at once. The default is {@link #add(List)}.
   */
  default void addBatch(List<Document> documents) {
    add(documents);
  }

  /** Makes every write so far visible to searches now. The default does nothing. */
  default void refresh() {}

  /** Documents matching the filter ({@code null} = all), newest first, paged. */
  List<Document> list(Filter.Expression filter, int offset, int limit);

  /** How many documents match the filter ({@code null} = all). */
  long count(Filter.Expression filter);

  /**
   * {@link #list(Filter.Expression, int, int)} narrowed to the documents whose text holds a word of
   * {@code text} as {@link #keywordSearch} reads it (analysed the same way; any word matches):
   * every such document, newest first, unranked. {@code null} text narrows nothing; a text without
   * a searchable word (only stop words) matches nothing.
   */
  List<Document> list(Filter.Expression filter, String text, int offset, int limit);

  /** How many documents {@link #list(Filter.Expression, String, int, int)} pages over. */
  long count(Filter.Expression filter, String text);

  /**
   * How many of the documents {@link #list(Filter.Expression, String, int, int)} pages over have
   * each value of the string key {@code key} (a {@link #FILTER_KEYS} key but {@link #CREATED_AT},
   * e.g. {@link #STATUS} or {@link #TYPE}); values no document has are absent, and so are documents
   * without the key. One pass, not one count per value.
   *
   * @throws IllegalArgumentException for a key that cannot be counted by
   */
  Map<String, Long> countBy(String key, Filter.Expression filter, String text);

  /**
   * The owners of {@code agent}'s {@link dev.memstack.spi.Scope#PERSONAL PERSONAL} records (every
   * status), each with how many such records it has, ordered by owner key in Unicode code point
   * order: the page {@code [offset, offset + limit)} of the owners whose key starts with {@code
   * prefix} and holds {@code contains} in any case. Read from the index alone (no record is
   * loaded), so its cost grows with the agent's records, not with their size.
   *
   * @param prefix the start of the keys (as given), or {@code null} for any
   * @param contains a part of the keys (compared in lower case), or {@code null} for any
   * @return the page and how many owners match in all
   */
  OwnerPage owners(String agent, String prefix, String contains, int offset, int limit);

  /** An owner key and how many of the agent's personal records it has. */
  record OwnerCount(String owner, long count) {}

  /**
   * One page of {@link #owners}.
   *
   * @param total how many owners match, on every page
   * @param owners the page, in owner-key order
   */
  record OwnerPage(long total, List<OwnerCount> owners) {
    public OwnerPage {
      owners = List.copyOf(owners);
    }
  }

  /**
   * Changes metadata of one document in place (e.g. {@link #STATUS}) without re-embedding. A {@code
   * null} value removes an extra key; {@link #ID} and {@link #CREATED_AT} cannot change.
   *
   * @return whether the document existed
   */
  boolean updateMetadata(String id, Map<String, Object> changes);

  /**
   * Adds one to {@code owner}'s feedback count of each stored record among {@code ids} and raises
   * the owner's {@link Trust} in it, now and with the {@link TrustChange#DEFAULT_HALF_LIFE default
   * half-life}: {@link #addTrust} with {@link TrustChange#used}. An id that is not stored is
   * ignored; an id given twice counts once. The caller checks that the owner may see the records.
   *
   * @return how many records' counts were raised
   */
  default int addFeedback(OwnerKey owner, Collection<String> ids) {
    return addTrust(
            owner, ids, TrustChange.used(java.time.Instant.now(), TrustChange.DEFAULT_HALF_LIFE))
        .size();
  }

  /**
   * {@code owner}'s feedback counts (uses) of those of {@code ids} that have one (ids without
   * feedback are absent): the {@link Trust#uses()} of {@link #trust}.
   */
  default Map<String, Long> feedback(OwnerKey owner, Collection<String> ids) {
    Map<String, Long> counts = new java.util.LinkedHashMap<>();
    trust(owner, ids)
        .forEach(
            (id, trust) -> {
              if (trust.uses() > 0) {
                counts.put(id, trust.uses());
              }
            });
    return counts;
  }

  /**
   * Applies {@code change} to {@code owner}'s {@link Trust} in each stored record among {@code ids}
   * (a row is created at {@link Trust#NONE} for a record without one), as one atomic update per
   * record ({@link Trust#apply}: never a read-modify-write that a concurrent change, from this
   * process or another host, could overwrite). An id that is not stored is ignored; an id given
   * twice counts once. The caller checks that the owner may see the records.
   *
   * @return the changed rows by record id, as they are after the change
   */
  Map<String, Trust> addTrust(OwnerKey owner, Collection<String> ids, TrustChange change);

  /**
   * {@code owner}'s trust rows of those of {@code ids} that have one (the others are absent).
   * Cheap: it is on the recall path.
   */
  Map<String, Trust> trust(OwnerKey owner, Collection<String> ids);

  /**
   * Hides a record from {@code owner}'s recall ({@link Trust#hidden()}), or shows it again: their
   * trust row of it says so from now on, for this owner alone ({@link Trust#hidden(boolean)}: shown
   * again, its wrong count restarts from zero).
   *
   * @return whether the owner had a trust row of the record
   */
  boolean hide(OwnerKey owner, String id, boolean hidden);

  /**
   * Removes every feedback count and trust row of {@code owner} (part of erasing the owner).
   *
   * @return how many records' rows were removed
   */
  long deleteFeedback(OwnerKey owner);

  /**
   * Removes from storage what deletes left behind, so that no file or page of the store still holds
   * a deleted record's text (part of erasing an owner, after the deletes): the embedded store
   * merges the deleted documents out of its segments and drops the old ones, PostgreSQL vacuums the
   * table. Costs a merge or a table scan; call it after an erasure, not after every delete. The
   * default does nothing, for a store that deletes in place.
   */
  default void expungeDeleted() {}

  /**
   * The changes of each record ({@link MemoryHistory}), kept beside the records: a record's history
   * outlives its deletion as one {@code forgotten} event. The default keeps nothing.
   */
  default MemoryHistory history() {
    return MemoryHistory.NONE;
  }

  /** The embedding model id and dimension the stored vectors were made with. */
  StoreInfo info();

  /**
   * Recomputes every vector from the stored text with the current embedder and records its model
   * id; the way out of a model mismatch.
   *
   * @return how many documents were re-embedded
   */
  long reembed();

  @Override
  void close();

  /** What the stored vectors were made with. */
  record StoreInfo(String modelId, int dimension, long documents) {}
}
