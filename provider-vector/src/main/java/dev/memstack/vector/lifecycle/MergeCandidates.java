package dev.memstack.vector.lifecycle;

import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The conflict check: pairs of records within a filter (one owner's ACTIVE records) whose texts
 * overlap strongly, cosine similarity at least the threshold, most similar first. It looks at the
 * newest {@code maxRecords} records and re-embeds their texts (the store does not hand out
 * vectors), so it belongs in a tool call or a nightly job, not on the request path.
 *
 * @param store the store whose records it compares
 * @param embedder embeds their texts again
 */
public record MergeCandidates(MemoryVectorStore store, StoreEmbedder embedder) {

  /** Two records that say nearly the same. */
  public record Pair(Document first, Document second, double similarity) {}

  // the date prefix of stored texts would make records of one day look alike

  public MergeCandidates {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(embedder, "embedder");
  }

  /**
   * The pairs at or above {@code threshold} among the newest {@code maxRecords} records matching
   * {@code filter}, at most {@code limit}.
   */
  public List<Pair> find(Filter.Expression filter, double threshold, int maxRecords, int limit) {
    List<Document> docs = store.list(filter, 0, maxRecords);
    if (docs.size() < 2) {
      return List.of();
    }
    List<float[]> vectors =
        embedder.embedPassages(docs.stream().map(d -> MemoryRecord.undated(d.getText())).toList());
    List<Pair> pairs = new ArrayList<>();
    for (int i = 0; i < docs.size(); i++) {
      for (int j = i + 1; j < docs.size(); j++) {
        double similarity = StoreEmbedder.dot(vectors.get(i), vectors.get(j));
        if (similarity >= threshold) {
          pairs.add(new Pair(docs.get(i), docs.get(j), similarity));
        }
      }
    }
    pairs.sort(Comparator.comparingDouble(Pair::similarity).reversed());
    return pairs.size() > limit ? List.copyOf(pairs.subList(0, limit)) : pairs;
  }
}
