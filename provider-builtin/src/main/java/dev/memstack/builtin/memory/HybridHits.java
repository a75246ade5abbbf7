package dev.memstack.builtin.memory;

import dev.memstack.builtin.search.KeywordHit;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuses the keyword hits and the dense view's hits of one recall by weighted reciprocal rank fusion
 * ({@link DenseSettings}): a paragraph scores {@code 1 / (k + keyword rank) + weight / (k + dense
 * rank)} over the lists it is in, divided by the most a paragraph first in both can score, so the
 * fused score lies in (0, 1]. Ties go to the better keyword rank, then the better dense rank.
 */
final class HybridHits {

  /**
   * One fused paragraph: the hit to show (the keyword hit when there is one: it carries the match's
   * line and snippet), its 1-based rank in each list (0: not in it), the dense cosine and the fused
   * score.
   */
  record Fused(KeywordHit hit, int keywordRank, int denseRank, double denseScore, double score) {}

  private HybridHits() {}

  /** The best {@code limit} paragraphs of both lists, best first. */
  static List<Fused> fuse(
      List<KeywordHit> keyword, List<KeywordHit> nearest, DenseSettings settings, int limit) {
    double k = settings.fusionK();
    double best = 1 / (k + 1) + settings.weight() / (k + 1);
    Map<String, KeywordHit> hits = new LinkedHashMap<>();
    Map<String, int[]> ranks = new LinkedHashMap<>();
    Map<String, Double> cosines = new LinkedHashMap<>();
    for (int r = 0; r < keyword.size(); r++) {
      String key = key(keyword.get(r));
      if (hits.putIfAbsent(key, keyword.get(r)) == null) {
        ranks.put(key, new int[] {r + 1, 0});
      }
    }
    for (int r = 0; r < nearest.size(); r++) {
      KeywordHit hit = nearest.get(r);
      String key = key(hit);
      hits.putIfAbsent(key, hit);
      int[] rank = ranks.computeIfAbsent(key, x -> new int[2]);
      if (rank[1] == 0) {
        rank[1] = r + 1;
        cosines.put(key, hit.score());
      }
    }
    List<Fused> fused = new ArrayList<>(hits.size());
    for (Map.Entry<String, KeywordHit> entry : hits.entrySet()) {
      int[] rank = ranks.get(entry.getKey());
      double score = 0;
      if (rank[0] > 0) {
        score += 1 / (k + rank[0]);
      }
      if (rank[1] > 0) {
        score += settings.weight() / (k + rank[1]);
      }
      fused.add(
          new Fused(
              entry.getValue(),
              rank[0],
              rank[1],
              cosines.getOrDefault(entry.getKey(), 0.0),
              Math.min(1.0, score / best)));
    }
    fused.sort(
        Comparator.comparingDouble((Fused f) -> -f.score())
            .thenComparingInt(f -> f.keywordRank() == 0 ? Integer.MAX_VALUE : f.keywordRank())
            .thenComparingInt(f -> f.denseRank() == 0 ? Integer.MAX_VALUE : f.denseRank()));
    return fused.size() > limit ? List.copyOf(fused.subList(0, limit)) : List.copyOf(fused);
  }

  /** One paragraph: its bucket, file and text (a file's paragraphs are distinct by position). */
  private static String key(KeywordHit hit) {
    WorkspacePath path = hit.path();
    return hit.bucket().key() + "|" + path.value() + "|" + hit.text();
  }
}
