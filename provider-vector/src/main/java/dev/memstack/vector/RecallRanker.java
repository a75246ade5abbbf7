package dev.memstack.vector;

import dev.memstack.spi.OwnerKey;
import dev.memstack.support.Decimals;
import dev.memstack.vector.lifecycle.Lifecycle;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.Trust;
import dev.memstack.vector.store.TrustChange;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * Hybrid ranking within a filter: the vector hits above the threshold and the BM25 hits are fused
 * by weighted reciprocal rank fusion, {@code Σ w / (k + rank)}; to it is added {@code
 * neighbour-weight} × the best such score among the candidates of its conversation neighbours (the
 * turn before and the turns after it: a reply is found by the question it answered), and the sum is
 * normalised so that an item ranked first in both lists next to a neighbour ranked so too scores 1
 * (the relevance, 0..1), then multiplied by a mild recency factor {@code 1 − r + r · 0.5^(age /
 * half-life)} (0..1), with the lifecycle on by the record's weight ({@link Lifecycle#rankFactor},
 * 0..1; 1 for records without lifecycle metadata), and for a request with an owner by that owner's
 * feedback factor {@code 1 + }{@value #FEEDBACK_BONUS}{@code · min(1, log2(1 + n) / 4)} for the
 * owner's feedback count {@code n} of the record (1 without feedback, at most {@code 1 + }{@value
 * #FEEDBACK_BONUS}, reached at {@value #FEEDBACK_SATURATION} confirmations). The product is divided
 * by that maximum, so the final score lies in [0, 1]: 1 is an item ranked first by both searches,
 * brand new, of full weight and with the most feedback. Feedback only changes the order of two
 * items whose scores without it differ by less than 3 % of the larger: it orders near-ties and
 * never lifts a clearly less relevant item above a more relevant one (two adjacent ranks of one
 * search list differ by more near the top: 1/(k+1) against 1/(k+2) is 4.8 % at k = 20); it is the
 * owner's own count, so another owner's feedback never changes this ranking. The owner's {@link
 * Trust} in the record (uses raise it, wrongs lower it, it fades with {@code trust-half-life-days})
 * lowers a distrusted record's score by its distrust factor {@code 1 + }{@value
 * #DISTRUST_PENALTY}{@code · min(0, trust)} (1 without wrongs or with a trust above 0, 0.77 after
 * one wrong, 0.62 after two, never below {@code 1 − }{@value #DISTRUST_PENALTY}): a record the
 * owner said was wrong falls below a relevant one it was close to, and a relevant one far above it
 * stays above; a trust above 0 changes nothing here (its uses already count through the feedback
 * factor). A shared record hidden from the owner ({@link Trust#hidden()}: marked wrong often
 * enough) is left out. Nothing here writes: being ranked is not evidence of being useful. Keyword
 * hits need no vector threshold: names, codes and rare words are what BM25 is for. Each result
 * carries the signals behind its rank.
 *
 * <p>Ranking reads only what it needs of each candidate ({@link MemoryVectorStore#vectorHits},
 * {@link MemoryVectorStore#keywordHits}: id, score and the ranking keys); the whole documents and
 * the signals are made for the {@code limit} items returned only.
 */
final class RecallRanker {

  /** One ranked document with its final score and the signals behind it. */
  record Ranked(Document document, double score, Map<String, String> signals) {}

  private final MemoryVectorStore store;
  private final VectorSettings settings;
  private final boolean lifecycle;
  private final Duration trustHalfLife;

  /** The most the feedback factor adds: 3 % of the score. */
  static final double FEEDBACK_BONUS = 0.03;

  /** The most a distrust factor takes away: half of the score, at trust −1. */
  static final double DISTRUST_PENALTY = 0.5;

  /**
   * {@code 1 + DISTRUST_PENALTY · min(0, trust)}: 1 for a trust of 0 or more, down to {@code 1 −
   * DISTRUST_PENALTY} at −1.
   */
  static double distrustFactor(double trust) {
    if (!(trust < 0)) {
      return 1.0; // 0, positive or NaN
    }
    return 1 + DISTRUST_PENALTY * Math.max(-1.0, trust);
  }

  /** The feedback count at which the factor reaches its maximum ({@code log2(1 + 15) = 4}). */
  static final long FEEDBACK_SATURATION = 15;

  /**
   * {@code 1 + FEEDBACK_BONUS · min(1, log2(1 + n) / 4)}: 1 for no feedback, 1.0075 after one
   * confirmation, 1.015 after three, 1.03 from fifteen on.
   */
  static double feedbackFactor(long count) {
    if (count <= 0) {
      return 1.0;
    }
    double log2 = Math.log1p((double) count) / Math.log(2);
    double saturation = Math.log1p((double) FEEDBACK_SATURATION) / Math.log(2);
    return 1 + FEEDBACK_BONUS * Math.min(1.0, log2 / saturation);
  }

  /**
   * The final score, in [0, 1]: relevance × recency × weight × feedback factor (times the distrust
   * factor, 0.5..1, when there is one) over the largest feedback factor, clamped (a factor outside
   * its range, or NaN, cannot leave the bounds). With every factor in its range the clamp never
   * applies, so it never reorders items.
   */
  static double score(double relevance, double recency, double weight, double feedbackFactor) {
    double score = relevance * recency * weight * feedbackFactor / (1 + FEEDBACK_BONUS);
    if (!(score > 0)) {
      return 0; // negative or NaN
    }
    return Math.min(1.0, score);
  }

  RecallRanker(MemoryVectorStore store, VectorSettings settings) {
    this(store, settings, false);
  }

  RecallRanker(MemoryVectorStore store, VectorSettings settings, boolean lifecycle) {
    this(store, settings, lifecycle, TrustChange.DEFAULT_HALF_LIFE);
  }

  RecallRanker(
      MemoryVectorStore store, VectorSettings settings, boolean lifecycle, Duration trustHalfLife) {
    this.store = store;
    this.settings = settings;
    this.lifecycle = lifecycle;
    this.trustHalfLife = trustHalfLife;
  }

  /** {@link #rank(float[], String, Filter.Expression, OwnerKey, int, Instant)} without feedback. */
  List<Ranked> rank(
      float[] queryVector, String query, Filter.Expression filter, int limit, Instant now) {
    return rank(queryVector, query, filter, null, limit, now);
  }

  /**
   * The best {@code limit} documents for the query within the filter.
   *
   * @param queryVector the embedded query, or {@code null} to rank by keywords alone
   * @param owner whose feedback counts order near-ties and whose trust lowers distrusted records,
   *     or {@code null} for none; the filter must only match records this owner may see
   */
  List<Ranked> rank(
      float[] queryVector,
      String query,
      Filter.Expression filter,
      OwnerKey owner,
      int limit,
      Instant now) {
    return rank(() -> queryVector, query, filter, owner, limit, now);
  }

  /**
   * As {@link #rank(float[], String, Filter.Expression, OwnerKey, int, Instant)}, with the query's
   * vector asked for only after the keyword search (and not at all when vectors do not count): the
   * query's embedding, shared with the other providers of a context call, is often still being made
   * when the call starts.
   *
   * @param queryVector gives the embedded query, or {@code null} to rank by keywords alone
   */
  List<Ranked> rank(
      Supplier<float[]> queryVector,
      String query,
      Filter.Expression filter,
      OwnerKey owner,
      int limit,
      Instant now) {
    // A floor well above any limit a context call asks for, so that an item's place does not
    // depend on how many items were asked for (the host over-fetches by different factors).
    int candidates = Math.max(limit, settings.candidates());
    List<MemoryVectorStore.Hit> keyword =
        settings.keywordWeight() == 0 ? List.of() : store.keywordHits(query, filter, candidates);
    float[] embedded = settings.vectorWeight() == 0 ? null : queryVector.get();
    List<MemoryVectorStore.Hit> vector =
        embedded == null
            ? List.of()
            : store.vectorHits(embedded, filter, candidates, settings.threshold());

    Map<String, Candidate> byId = new LinkedHashMap<>();
    for (int i = 0; i < vector.size(); i++) {
      MemoryVectorStore.Hit hit = vector.get(i);
      Candidate c = byId.computeIfAbsent(hit.id(), id -> new Candidate(hit));
      c.vectorRank = i + 1;
      c.vectorScore = hit.score();
    }
    for (int i = 0; i < keyword.size(); i++) {
      MemoryVectorStore.Hit hit = keyword.get(i);
      Candidate c = byId.computeIfAbsent(hit.id(), id -> new Candidate(hit));
      c.keywordRank = i + 1;
      c.keywordScore = hit.score();
    }

    Map<String, Trust> trust =
        owner == null || byId.isEmpty() ? Map.of() : store.trust(owner, byId.keySet());
    if (!trust.isEmpty()) {
      byId.keySet().removeIf(id -> trust.containsKey(id) && trust.get(id).hidden());
    }

    double k = settings.rrfK();
    double lift = settings.neighbourWeight();
    double best = (settings.vectorWeight() + settings.keywordWeight()) / (k + 1) * (1 + lift);
    for (Candidate c : byId.values()) {
      if (c.vectorRank > 0) {
        c.own += settings.vectorWeight() / (k + c.vectorRank);
      }
      if (c.keywordRank > 0) {
        c.own += settings.keywordWeight() / (k + c.keywordRank);
      }
    }
    Map<String, Double> neighbours = lift == 0 ? Map.of() : neighbourScores(byId.values());
    for (Candidate c : byId.values()) {
      c.neighbour = neighbours.getOrDefault(c.hit.id(), 0.0);
      c.fused = c.own + lift * c.neighbour;
      c.recency = recency(c.hit.metadata(), now);
      c.weight = lifecycle ? Lifecycle.rankFactor(c.hit.metadata()) : 1.0;
      Trust row = trust.getOrDefault(c.hit.id(), Trust.NONE);
      c.uses = row.uses();
      c.wrongs = row.wrongs();
      c.feedbackFactor = feedbackFactor(c.uses);
      c.trust = row.value(now.toEpochMilli(), trustHalfLife);
      c.trustFactor = distrustFactor(c.trust);
      c.score = score(c.fused / best, c.recency, c.weight, c.feedbackFactor * c.trustFactor);
    }
    List<Candidate> top = new ArrayList<>(byId.values());
    top.sort(
        Comparator.comparingDouble((Candidate c) -> c.score)
            .reversed()
            .thenComparing(c -> c.hit.id()));
    if (top.size() > limit) {
      top = top.subList(0, limit);
    }
    // only now the texts, and the signals, of the few items returned
    Map<String, Document> documents = documents(top);
    List<Ranked> ranked = new ArrayList<>(top.size());
    for (Candidate c : top) {
      Document document = documents.get(c.hit.id());
      if (document != null) { // absent only when deleted since the search
        ranked.add(new Ranked(document, c.score, signals(c, best, owner != null)));
      }
    }
    return ranked;
  }

  /** The whole documents of the candidates, loading those the searches did not. */
  private Map<String, Document> documents(List<Candidate> candidates) {
    Map<String, Document> documents = new HashMap<>();
    List<MemoryVectorStore.Hit> missing = new ArrayList<>();
    for (Candidate c : candidates) {
      if (c.hit.document() != null) {
        documents.put(c.hit.id(), c.hit.document());
      } else {
        missing.add(c.hit);
      }
    }
    if (!missing.isEmpty()) {
      documents.putAll(store.documents(missing));
    }
    return documents;
  }

  private Map<String, String> signals(Candidate c, double best, boolean withFeedback) {
    Map<String, String> signals = new LinkedHashMap<>();
    if (c.vectorRank > 0) {
      signals.put("vector_score", Decimals.fourPlaces(c.vectorScore));
      signals.put("vector_rank", Integer.toString(c.vectorRank));
    }
    if (c.keywordRank > 0) {
      signals.put("keyword_score", Decimals.fourPlaces(c.keywordScore));
      signals.put("keyword_rank", Integer.toString(c.keywordRank));
    }
    if (c.neighbour > 0) {
      signals.put("neighbour", Decimals.fourPlaces(c.neighbour / best));
    }
    signals.put("fused", Decimals.fourPlaces(c.fused / best));
    signals.put("recency", Decimals.fourPlaces(c.recency));
    if (lifecycle && Lifecycle.tracked(c.hit.metadata())) {
      signals.put("weight", Decimals.fourPlaces(c.weight));
    }
    if (withFeedback) {
      signals.put("feedback", Long.toString(c.uses));
      signals.put("feedback_factor", Decimals.fourPlaces(c.feedbackFactor));
      signals.put("wrong", Long.toString(c.wrongs));
      // 0 and not "-0.0000" for a trust that has faded to almost nothing
      signals.put("trust", Decimals.fourPlaces(Math.abs(c.trust) < 0.00005 ? 0.0 : c.trust));
      signals.put("trust_factor", Decimals.fourPlaces(c.trustFactor));
    }
    return signals;
  }

  /**
   * For each candidate, the best own score among the candidates of its conversation neighbours: the
   * turn before it ({@link MemoryRecord#PREVIOUS_TURN}) and the turns whose turn before is its
   * turn. Only candidates count: no extra search is made.
   */
  private static Map<String, Double> neighbourScores(Iterable<Candidate> candidates) {
    Map<String, Double> bestOfTurn = new HashMap<>();
    Map<String, Double> bestAfter = new HashMap<>(); // turn -> best own score of the turns after it
    for (Candidate c : candidates) {
      if (c.turn != null) {
        bestOfTurn.merge(c.turn, c.own, Math::max);
      }
      if (c.previousTurn != null) {
        bestAfter.merge(c.previousTurn, c.own, Math::max);
      }
    }
    Map<String, Double> scores = new HashMap<>();
    for (Candidate c : candidates) {
      double best =
          Math.max(
              c.previousTurn == null ? 0 : bestOfTurn.getOrDefault(c.previousTurn, 0.0),
              c.turn == null ? 0 : bestAfter.getOrDefault(c.turn, 0.0));
      if (best > 0) {
        scores.put(c.hit.id(), best);
      }
    }
    return scores;
  }

  private static String text(Object value) {
    return value instanceof String s && !s.isEmpty() ? s : null;
  }

  private double recency(Map<String, Object> metadata, Instant now) {
    if (settings.recencyWeight() == 0) {
      return 1.0;
    }
    Object created = metadata.get(MemoryVectorStore.CREATED_AT);
    if (!(created instanceof Number millis)) {
      return 1.0;
    }
    long ageMillis = Math.max(0, now.toEpochMilli() - millis.longValue());
    double halfLives = ageMillis / (double) settings.recencyHalfLife().toMillis();
    double decay = Math.pow(0.5, halfLives);
    return 1 - settings.recencyWeight() + settings.recencyWeight() * decay;
  }

  private static final class Candidate {
    final MemoryVectorStore.Hit hit;
    int vectorRank;
    int keywordRank;
    Double vectorScore;
    Double keywordScore;
    double own;
    double neighbour;
    double fused;
    double recency;
    double weight;
    long uses;
    long wrongs;
    double feedbackFactor;
    double trust;
    double trustFactor;
    double score;
    final String turn;
    final String previousTurn;

    Candidate(MemoryVectorStore.Hit hit) {
      this.hit = hit;
      this.turn = text(hit.metadata().get(MemoryVectorStore.TURN));
      this.previousTurn = text(hit.metadata().get(MemoryRecord.PREVIOUS_TURN));
    }
  }
}
