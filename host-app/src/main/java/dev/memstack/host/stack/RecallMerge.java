package dev.memstack.host.stack;

import dev.memstack.host.provider.StackMember;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.support.ControlCharacters;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * How the stack turns the providers' recall answers into one context block, in the order the steps
 * run:
 *
 * <ol>
 *   <li>{@link #visibleItems}: each answer is sorted by the provider's score, items the request may
 *       not see are dropped, fence tags are removed and the source is set to the provider id.
 *   <li>{@link #merge}: weighted reciprocal rank fusion ({@link StackProperties.Fusion}). Scores of
 *       different providers cannot be compared, ranks can once weighted by how well each provider
 *       recalls. Copies of one memory across providers (same text, or one text containing the
 *       other) are shown once and count for every provider that found them.
 *   <li>{@link #adjustForTrust}: the owner's trust in each memory (the {@link
 *       MemoryStack#TRUST_SIGNAL} its providers report) moves it by one bounded adjustment after
 *       the ranking score, learned or fusion.
 *   <li>{@link #present}: without {@code explain} an item keeps only the provider's item {@link
 *       MemoryStack#ITEM_ID id} (what feedback names); with it, the provider's metadata plus {@link
 *       MemoryStack#RANK}, {@link MemoryStack#RANKS}, {@link MemoryStack#SCORE} and {@link
 *       MemoryStack#DUPLICATES}.
 *   <li>{@link #fence}: as many items as {@code memstack.stack.context.budget} holds are fenced by
 *       {@link MemoryContextFence}; the first that does not fit is shortened when a short line
 *       still fits.
 * </ol>
 *
 * Immutable and thread-safe.
 */
final class RecallMerge {

  /** Shortest normalised text that may stand for a copy contained in a longer item. */
  private static final int MIN_CONTAINED = 16;

  /**
   * One item of one provider's answer: the provider's position in the stack and the item's rank.
   */
  private record Ranked(int member, int rank, RecallItem item, double relevance, double unnamed) {}

  /** One memory as the merge sees it: the best-placed copy and what every copy contributed. */
  private static final class Fused {
    final Ranked first;
    Ranked shown;
    String shownKey;
    final String key;
    double score;

    /** The best cosine of a copy to the query ({@link StackRelevance}), NaN when none scored. */
    double relevance = Double.NaN;

    /**
     * The same copy's cosine with the speakers taken out of both sides, NaN when not computed (then
     * the ranking reads {@link #relevance} for it).
     */
    double unnamed = Double.NaN;

    /** 1-based rank by relevance among the scored memories, 0 when unscored. */
    int relevanceRank;

    final Set<String> duplicates = new LinkedHashSet<>();

    /** Each provider's best 1-based rank of a copy, in the order the copies were met. */
    final Map<String, Integer> ranks = new LinkedHashMap<>();

    /** Each provider's best-placed copy. */
    final Map<String, RecallItem> copies = new LinkedHashMap<>();

    /** The learned ranking's score, NaN when the fusion ranks. */
    double learned = Double.NaN;

    /** The ranking features (explain or learned ranking), {@code null} when not computed. */
    double[] features;

    /** The owner's trust in the memory, -1..1, 0 when no copy reports one. */
    double trust;

    /** What the trust added to the ranking score. */
    double trustAdjustment;

    Fused(Ranked first, String key) {
      this.first = first;
      this.shown = first;
      this.key = key;
      this.shownKey = key;
    }
  }

  private final StackProperties.Fusion fusion;
  private final int budget;
  private final LearnedRanking ranking;
  private final double trustWeight;

  /**
   * @param fusion the fusion settings ({@code memstack.stack.fusion})
   * @param budget the context block's char budget ({@code memstack.stack.context.budget})
   * @param ranking the learned ranking stage, or the fusion alone
   * @param trustWeight {@code memstack.stack.ranking.trust-weight}: how many standard deviations of
   *     the ranking score a trust of ±1 moves a memory
   */
  RecallMerge(
      StackProperties.Fusion fusion, int budget, LearnedRanking ranking, double trustWeight) {
    this.fusion = fusion;
    this.budget = budget;
    this.ranking = ranking;
    this.trustWeight = trustWeight;
  }

  /** The ranking stage in use. */
  LearnedRanking ranking() {
    return ranking;
  }

  // ---- 1. one provider's answer

  /**
   * Copies the items the request may see into {@code out}, best first, at most {@code limit}, with
   * fence tags removed and the source set to the member id; returns how many were not visible.
   */
  static int visibleItems(
      StackMember member, RecallRequest request, Recall recall, List<RecallItem> out) {
    int hidden = 0;
    List<RecallItem> items = new ArrayList<>(recall.items());
    items.sort(Comparator.comparingDouble(RecallItem::score).reversed());
    for (RecallItem item : items) {
      if (item == null) {
        continue;
      }
      if (!request.maySee(item.scope(), item.owner())) {
        hidden++;
        continue;
      }
      if (out.size() >= request.limit()) {
        continue;
      }
      // control characters first: a NUL inside a fence tag must not hide the tag
      String text = MemoryContextFence.stripTags(ControlCharacters.strip(item.text())).strip();
      if (text.isEmpty()) {
        continue;
      }
      out.add(
          new RecallItem(
              text,
              item.score(),
              item.scope(),
              item.owner(),
              member.id(),
              item.createdAt(),
              item.metadata(),
              item.vector()));
    }
    return hidden;
  }

  // ---- 2. fusion

  /**
   * Weighted reciprocal rank fusion of the providers' answers ({@link StackProperties.Fusion}):
   * each item adds {@code weight / (k + rank)} to its memory, copies of one memory (same text, or
   * one containing the other once case, spaces and punctuation are ignored) are one memory shown
   * once as its shortest copy (the memory itself, without another copy's file name or markup), and
   * the memories are taken by fused score (a tie goes to the better provider rank, then to the
   * provider earlier in the stack), at most {@code limit}.
   *
   * <p>With {@code relevance} (the host's cosine of each item to the query, {@link StackRelevance})
   * and a {@link StackProperties.Fusion#relevanceWeight() relevance weight}, the memories also form
   * one more ranked list, by the best cosine of any of their copies, which adds {@code
   * relevance-weight / (relevance-k + rank)} to each scored memory: one scale across providers
   * beside their own ranks.
   *
   * @param answers the visible items of each member of {@code stack}, in stack order
   * @param relevance the host's cosines of each item of {@code answers} (same shape; NaN for
   *     unscored), or {@code null} for none
   * @param cues reads a text for the ranking's cues (a call reads each text once)
   */
  List<RecallItem> merge(
      List<StackMember> stack,
      List<List<RecallItem>> answers,
      StackRelevance.Scores relevance,
      int limit,
      boolean explain,
      String query,
      Function<String, QuestionCues> cues) {
    List<Ranked> all = new ArrayList<>();
    for (int m = 0; m < answers.size(); m++) {
      List<RecallItem> answer = answers.get(m);
      for (int r = 0; r < answer.size(); r++) {
        double cosine = relevance == null ? Double.NaN : relevance.cosine().get(m)[r];
        double unnamed =
            relevance == null || relevance.unnamed() == null
                ? Double.NaN
                : relevance.unnamed().get(m)[r];
        all.add(new Ranked(m, r, answer.get(r), cosine, unnamed));
      }
    }
    // best contributions first, so that each memory is represented by its best-placed copy
    all.sort(
        Comparator.comparingDouble(
                (Ranked x) -> -contribution(stack.get(x.member()).id(), x.rank()))
            .thenComparingInt(Ranked::rank)
            .thenComparingInt(Ranked::member));
    List<Fused> memories = new ArrayList<>();
    Map<String, Fused> byKey = new HashMap<>();
    for (Ranked ranked : all) {
      String key = MemoryContextFence.letters(ranked.item().text());
      double contribution = contribution(stack.get(ranked.member()).id(), ranked.rank());
      Fused copyOf = byKey.get(key);
      if (copyOf == null) {
        for (Fused memory : memories) {
          if (sameMemory(memory.key, key)) {
            copyOf = memory;
            break;
          }
        }
      }
      if (copyOf == null) {
        Fused memory = new Fused(ranked, key);
        memory.score = contribution;
        memory.relevance = ranked.relevance();
        memory.unnamed = ranked.unnamed();
        memory.ranks.put(ranked.item().source(), ranked.rank() + 1);
        memory.copies.put(ranked.item().source(), ranked.item());
        memories.add(memory);
        byKey.put(key, memory);
      } else {
        if (!copyOf.duplicates.contains(ranked.item().source())
            && ranked.member() != copyOf.first.member()) {
          copyOf.score += contribution; // another provider found it too
        }
        if (!Double.isNaN(ranked.relevance())
            && (Double.isNaN(copyOf.relevance) || ranked.relevance() > copyOf.relevance)) {
          copyOf.relevance = ranked.relevance(); // the best copy's cosine stands for the memory
          copyOf.unnamed = ranked.unnamed();
        }
        copyOf.duplicates.add(ranked.item().source());
        copyOf.ranks.putIfAbsent(ranked.item().source(), ranked.rank() + 1);
        copyOf.copies.putIfAbsent(ranked.item().source(), ranked.item());
        if (key.length() < copyOf.shownKey.length()) {
          // the shorter copy is the memory itself, without the longer one's file or markup
          copyOf.shown = ranked;
          copyOf.shownKey = key;
        }
      }
    }
    boolean scored = addRelevance(memories);
    memories.sort(
        Comparator.comparingDouble((Fused f) -> -f.score)
            .thenComparingInt(f -> f.first.rank())
            .thenComparingInt(f -> f.first.member()));
    double best = 0;
    for (int m = 0; m < stack.size(); m++) {
      best += contribution(stack.get(m).id(), 0);
    }
    if (scored) {
      best += fusion.relevanceWeight() / (fusion.relevanceK() + 1);
    }
    List<String> features = null;
    if (ranking.active() || explain) {
      features = learn(memories, best, query, cues);
    }
    adjustForTrust(memories);
    List<RecallItem> merged = new ArrayList<>();
    for (Fused memory : memories) {
      if (merged.size() >= limit) {
        break;
      }
      memory.duplicates.add(memory.first.item().source());
      memory.duplicates.remove(memory.shown.item().source());
      merged.add(present(memory, best, explain, features));
    }
    return merged;
  }

  /**
   * The learned ranking stage: computes every candidate's {@link RankingFeatures} (the model's
   * schema, or every feature that means something for these candidates when the fusion ranks) and,
   * with a model, orders {@code memories} by its score (ties keep the fusion's order). Returns the
   * feature names.
   */
  private List<String> learn(
      List<Fused> memories, double best, String query, Function<String, QuestionCues> cues) {
    List<RankingFeatures.Candidate> pool = new ArrayList<>(memories.size());
    for (int i = 0; i < memories.size(); i++) {
      Fused memory = memories.get(i);
      Map<String, Double> scores = new LinkedHashMap<>();
      Map<String, Map<String, String>> metadata = new LinkedHashMap<>();
      java.time.Instant createdAt = null;
      for (Map.Entry<String, RecallItem> copy : memory.copies.entrySet()) {
        scores.put(copy.getKey(), copy.getValue().score());
        metadata.put(copy.getKey(), copy.getValue().metadata());
        if (createdAt == null) {
          createdAt = copy.getValue().createdAt();
        }
      }
      pool.add(
          new RankingFeatures.Candidate(
              memory.shown.item().text(),
              createdAt,
              memory.relevance,
              memory.unnamed,
              best == 0 ? 0 : memory.score / best,
              i + 1,
              memory.ranks,
              scores,
              metadata));
    }
    RankingModel model = ranking.model();
    List<String> names = model != null ? model.features() : RankingFeatures.namesFor(pool);
    double[][] values = RankingFeatures.compute(names, query, pool, cues);
    for (int i = 0; i < memories.size(); i++) {
      Fused memory = memories.get(i);
      memory.features = values[i];
      if (model != null) {
        memory.learned = model.score(values[i]);
      }
    }
    if (model != null) {
      memories.sort(Comparator.comparingDouble((Fused f) -> -f.learned)); // stable
    }
    return names;
  }

  /**
   * The trust stage, after the ranking score: each memory's trust {@code t} (the mean of the {@link
   * MemoryStack#TRUST_SIGNAL} its copies report, clamped to -1..1; 0 when none reports one) moves
   * its ranking score {@code s} (the learned score, or the fused score when the fusion ranks) to
   * {@code s + w · σ · t}, where {@code w} is {@code memstack.stack.ranking.trust-weight} and
   * {@code σ} the standard deviation of {@code s} over this call's candidates: the adjustment is in
   * the ranking's own units whatever its scale, and never more than {@code w · σ} either way. The
   * memories are then ordered by the adjusted score (stable: equal scores keep their order).
   * Without any trust nothing moves and the order is exactly the ranking's. Trust is never a
   * feature of the learned model.
   */
  private void adjustForTrust(List<Fused> memories) {
    boolean any = false;
    for (Fused memory : memories) {
      memory.trust = trust(memory);
      any |= memory.trust != 0;
    }
    if (!any || trustWeight == 0 || memories.size() < 2) {
      return;
    }
    double[] scores = new double[memories.size()];
    double mean = 0;
    for (int i = 0; i < scores.length; i++) {
      Fused memory = memories.get(i);
      scores[i] = Double.isNaN(memory.learned) ? memory.score : memory.learned;
      mean += scores[i];
    }
    mean /= scores.length;
    double variance = 0;
    for (double score : scores) {
      variance += (score - mean) * (score - mean);
    }
    double sigma = Math.sqrt(variance / scores.length);
    if (!(sigma > 0)) {
      return;
    }
    Map<Fused, Double> adjusted = new HashMap<>();
    for (int i = 0; i < scores.length; i++) {
      Fused memory = memories.get(i);
      memory.trustAdjustment = trustWeight * sigma * memory.trust;
      adjusted.put(memory, scores[i] + memory.trustAdjustment);
    }
    memories.sort(Comparator.comparingDouble((Fused f) -> -adjusted.get(f))); // stable
  }

  /** The mean trust its copies report, clamped to -1..1; 0 when none reports one. */
  private static double trust(Fused memory) {
    double sum = 0;
    int count = 0;
    for (RecallItem copy : memory.copies.values()) {
      String value = copy.metadata().get(MemoryStack.TRUST_SIGNAL);
      if (value == null) {
        continue;
      }
      try {
        double trust = Double.parseDouble(value.strip());
        if (Double.isFinite(trust)) {
          sum += Math.max(-1, Math.min(1, trust));
          count++;
        }
      } catch (NumberFormatException e) {
        // not a number: no trust from this copy
      }
    }
    double trust = count == 0 ? 0 : sum / count;
    return trust == 0 ? 0 : trust; // never -0.0
  }

  /**
   * Ranks the scored memories by relevance and adds each its share; whether any memory was scored
   * (and the weight is not 0).
   */
  private boolean addRelevance(List<Fused> memories) {
    if (fusion.relevanceWeight() == 0) {
      return false;
    }
    List<Fused> scored = new ArrayList<>();
    for (Fused memory : memories) {
      if (!Double.isNaN(memory.relevance)) {
        scored.add(memory);
      }
    }
    // stable: equal cosines keep the order of their best provider contribution
    scored.sort(Comparator.comparingDouble((Fused f) -> -f.relevance));
    for (int r = 0; r < scored.size(); r++) {
      Fused memory = scored.get(r);
      memory.relevanceRank = r + 1;
      memory.score += fusion.relevanceWeight() / (fusion.relevanceK() + r + 1);
    }
    return !scored.isEmpty();
  }

  /** What an item at 0-based {@code rank} of {@code provider}'s answer adds to its memory. */
  private double contribution(String provider, int rank) {
    return fusion.weight(provider) / (fusion.k() + rank + 1);
  }

  /** Whether two normalised texts are copies of one memory: equal, or one holds the other. */
  private static boolean sameMemory(String a, String b) {
    if (a.equals(b)) {
      return true;
    }
    String shorter = a.length() <= b.length() ? a : b;
    String longer = shorter == a ? b : a;
    return shorter.length() >= MIN_CONTAINED && longer.contains(shorter);
  }

  // ---- 3. presentation

  /**
   * The item shown for a memory; {@code best} is the highest possible fused score (first in every
   * provider's answer), so that {@link MemoryStack#SCORE} is in 0..1.
   */
  private RecallItem present(Fused memory, double best, boolean explain, List<String> features) {
    RecallItem item = memory.shown.item();
    // Without explain only the provider's item id is kept: feedback names items by it.
    String itemId = item.metadata().get(MemoryStack.ITEM_ID);
    Map<String, String> metadata = itemId == null ? Map.of() : Map.of(MemoryStack.ITEM_ID, itemId);
    if (explain) {
      Map<String, String> signals = new LinkedHashMap<>(item.metadata());
      signals.put(MemoryStack.RANK, Integer.toString(memory.shown.rank() + 1));
      signals.put(
          MemoryStack.SCORE,
          String.format(Locale.ROOT, "%.4f", best == 0 ? 0 : memory.score / best));
      if (!memory.duplicates.isEmpty()) {
        signals.put(MemoryStack.DUPLICATES, String.join(",", memory.duplicates));
      }
      List<String> ranks = new ArrayList<>();
      memory.ranks.forEach((provider, rank) -> ranks.add(provider + ":" + rank));
      signals.put(MemoryStack.RANKS, String.join(",", ranks));
      if (!Double.isNaN(memory.relevance)) {
        signals.put(MemoryStack.RELEVANCE, String.format(Locale.ROOT, "%.4f", memory.relevance));
        signals.put(MemoryStack.RELEVANCE_RANK, Integer.toString(memory.relevanceRank));
      }
      signals.put(MemoryStack.RANKING, ranking.describe());
      if (!Double.isNaN(memory.learned)) {
        signals.put(MemoryStack.LEARNED, String.format(Locale.ROOT, "%.4f", memory.learned));
      }
      signals.put(MemoryStack.TRUST, String.format(Locale.ROOT, "%.4f", memory.trust));
      double adjustment = Math.abs(memory.trustAdjustment) < 0.00005 ? 0 : memory.trustAdjustment;
      signals.put(
          MemoryStack.TRUST_ADJUSTMENT,
          adjustment == 0 ? "0.0000" : String.format(Locale.ROOT, "%+.4f", adjustment));
      if (features != null && memory.features != null) {
        RankingModel model = ranking.model();
        double[] contributions = model == null ? null : model.contributions(memory.features);
        for (int f = 0; f < features.size(); f++) {
          double value = memory.features[f];
          String shown = String.format(Locale.ROOT, "%.4f", value);
          if (contributions != null) {
            double contribution = Math.abs(contributions[f]) < 0.00005 ? 0 : contributions[f];
            shown += String.format(Locale.ROOT, " %+.4f", contribution); // never "-0.0000"
          }
          signals.put(MemoryStack.FEATURE + features.get(f), shown);
        }
      }
      metadata = signals;
    }
    return new RecallItem(
        item.text(),
        item.score(),
        item.scope(),
        item.owner(),
        item.source(),
        item.createdAt(),
        metadata);
  }

  // ---- 4. the budget

  /**
   * Fences as many items as the context budget holds, in order; the first item that does not fit is
   * shortened when at least a short line still fits, and the rest is left out. {@code shown}
   * receives the items as they appear in the block.
   */
  String fence(List<RecallItem> items, List<RecallItem> shown) {
    int room = budget - MemoryContextFence.overhead();
    List<String> lines = new ArrayList<>();
    for (RecallItem item : items) {
      String line = MemoryContextFence.line(item);
      if (line.length() + 1 <= room) {
        lines.add(line);
        shown.add(item);
        room -= line.length() + 1;
        continue;
      }
      String prefix = MemoryContextFence.line(item.withText("x"));
      int textRoom = room - 1 - (prefix.length() - 1) - 1;
      if (textRoom >= 40) {
        String flat = item.text().replaceAll("\\s+", " ").strip();
        int cut = textRoom;
        if (Character.isHighSurrogate(flat.charAt(cut - 1))) {
          cut--;
        }
        RecallItem shortened = item.withText(flat.substring(0, cut).stripTrailing() + "…");
        lines.add(MemoryContextFence.line(shortened));
        shown.add(shortened);
      }
      break;
    }
    return MemoryContextFence.wrap(lines);
  }
}
