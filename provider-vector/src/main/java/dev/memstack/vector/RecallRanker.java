package dev.memstack.vector;

import dev.memstack.vector.lifecycle.Lifecycle;
import dev.memstack.vector.store.MemoryVectorStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * Hybrid ranking within a filter: the vector hits above the threshold and the BM25 hits are fused
 * by weighted reciprocal rank fusion, {@code Σ w / (k + rank)}, normalised so that an item ranked
 * first in both lists scores 1, then multiplied by a mild recency factor {@code 1 − r + r ·
 * 0.5^(age / half-life)} and, with the lifecycle on, by weight × (1 + 0.05 × reinforcements)
 * ({@link Lifecycle#rankFactor}; 1 for records without lifecycle metadata). Keyword hits need no
 * vector threshold: names, codes and rare words are what BM25 is for. Each result carries the
 * signals behind its rank.
 */
final class RecallRanker {

  /** One ranked document with its final score and the signals behind it. */
  record Ranked(Document document, double score, Map<String, String> signals) {}

  private final MemoryVectorStore store;
  private final VectorSettings settings;
  private final boolean lifecycle;

  RecallRanker(MemoryVectorStore store, VectorSettings settings) {
    this(store, settings, false);
  }

  RecallRanker(MemoryVectorStore store, VectorSettings settings, boolean lifecycle) {
    this.store = store;
    this.settings = settings;
    this.lifecycle = lifecycle;
  }

  /**
   * The best {@code limit} documents for the query within the filter.
   *
   * @param queryVector the embedded query, or {@code null} to rank by keywords alone
   */
  List<Ranked> rank(
      float[] queryVector, String query, Filter.Expression filter, int limit, Instant now) {
    int candidates = Math.max(limit * 3, 20);
    List<Document> vector =
        queryVector == null || settings.vectorWeight() == 0
            ? List.of()
            : store.vectorSearch(queryVector, filter, candidates, settings.threshold());
    List<Document> keyword =
        settings.keywordWeight() == 0 ? List.of() : store.keywordSearch(query, filter, candidates);

    Map<String, Candidate> byId = new LinkedHashMap<>();
    for (int i = 0; i < vector.size(); i++) {
      Document doc = vector.get(i);
      Candidate c = byId.computeIfAbsent(doc.getId(), id -> new Candidate(doc));
      c.vectorRank = i + 1;
      c.vectorScore = doc.getScore();
    }
    for (int i = 0; i < keyword.size(); i++) {
      Document doc = keyword.get(i);
      Candidate c = byId.computeIfAbsent(doc.getId(), id -> new Candidate(doc));
      c.keywordRank = i + 1;
      c.keywordScore = doc.getScore();
    }

    double k = settings.rrfK();
    double best = (settings.vectorWeight() + settings.keywordWeight()) / (k + 1);
    List<Ranked> ranked = new ArrayList<>(byId.size());
    for (Candidate c : byId.values()) {
      double fused = 0;
      if (c.vectorRank > 0) {
        fused += settings.vectorWeight() / (k + c.vectorRank);
      }
      if (c.keywordRank > 0) {
        fused += settings.keywordWeight() / (k + c.keywordRank);
      }
      double recency = recency(c.document, now);
      Map<String, Object> metadata = c.document.getMetadata();
      double lifecycleFactor = lifecycle ? Lifecycle.rankFactor(metadata) : 1.0;
      double score = fused / best * recency * lifecycleFactor;
      Map<String, String> signals = new LinkedHashMap<>();
      if (c.vectorRank > 0) {
        signals.put("vector_score", format(c.vectorScore));
        signals.put("vector_rank", Integer.toString(c.vectorRank));
      }
      if (c.keywordRank > 0) {
        signals.put("keyword_score", format(c.keywordScore));
        signals.put("keyword_rank", Integer.toString(c.keywordRank));
      }
      signals.put("fused", format(fused / best));
      signals.put("recency", format(recency));
      if (lifecycle && (Lifecycle.tracked(metadata) || Lifecycle.reinforcements(metadata) > 0)) {
        signals.put("weight", format(Lifecycle.weight(metadata)));
        signals.put("reinforcements", Long.toString(Lifecycle.reinforcements(metadata)));
      }
      ranked.add(new Ranked(c.document, score, signals));
    }
    ranked.sort(
        Comparator.comparingDouble(Ranked::score)
            .reversed()
            .thenComparing(r -> r.document().getId()));
    return ranked.size() > limit ? List.copyOf(ranked.subList(0, limit)) : ranked;
  }

  private double recency(Document document, Instant now) {
    if (settings.recencyWeight() == 0) {
      return 1.0;
    }
    Object created = document.getMetadata().get(MemoryVectorStore.CREATED_AT);
    if (!(created instanceof Number millis)) {
      return 1.0;
    }
    long ageMillis = Math.max(0, now.toEpochMilli() - millis.longValue());
    double halfLives = ageMillis / (double) settings.recencyHalfLife().toMillis();
    double decay = Math.pow(0.5, halfLives);
    return 1 - settings.recencyWeight() + settings.recencyWeight() * decay;
  }

  private static String format(Double value) {
    return value == null ? "" : String.format(Locale.ROOT, "%.4f", value);
  }

  private static final class Candidate {
    final Document document;
    int vectorRank;
    int keywordRank;
    Double vectorScore;
    Double keywordScore;

    Candidate(Document document) {
      this.document = document;
    }
  }
}
