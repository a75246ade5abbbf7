package dev.memstack.builtin.memory;

import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.workspace.Bucket;
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
 *
 * <p>One exception keeps names, codes and rare words BM25's: when the keyword list's first hit
 * leads it clearly ({@link DenseSettings#keywordLead}: a BM25 score at least that many times the
 * second hit's, or the only hit), it scores as much as the best fused paragraph and, winning the
 * tie by its keyword rank, comes first. By rank alone it would score {@code 1 / (k + 1)} when the
 * dense list does not have it, behind every dense hit ranked better than {@code weight × (k + 1) −
 * k} (the 42 first at the defaults).
 */
final class HybridHits {

  /**
   * One fused paragraph: the hit to show (the keyword hit when there is one: it carries the match's
   * line and snippet), its 1-based rank in each list (0: not in it), the dense cosine, the fused
   * score and whether it is the keyword list's clear first placed first ({@link
   * DenseSettings#keywordLead}).
   */
  record Fused(
      KeywordHit hit,
      int keywordRank,
      int denseRank,
      double denseScore,
      double score,
      boolean keywordLead) {}

  private HybridHits() {}

  /** The best {@code limit} paragraphs of both lists, best first. */
  static List<Fused> fuse(
      List<KeywordHit> keyword, List<KeywordHit> nearest, DenseSettings settings, int limit) {
    double k = settings.fusionK();
    double best = 1 / (k + 1) + settings.weight() / (k + 1);
    // one entry a paragraph, in the order first seen (keyword hits first)
    Map<Paragraph, Entry> entries = new LinkedHashMap<>();
    for (int r = 0; r < keyword.size(); r++) {
      KeywordHit hit = keyword.get(r);
      Entry entry = entries.computeIfAbsent(Paragraph.of(hit), p -> new Entry(hit));
      if (entry.keywordRank == 0) {
        entry.keywordRank = r + 1;
      }
    }
    for (int r = 0; r < nearest.size(); r++) {
      KeywordHit hit = nearest.get(r);
      Entry entry = entries.computeIfAbsent(Paragraph.of(hit), p -> new Entry(hit));
      if (entry.hit.vector() == null && hit.vector() != null) {
        entry.hit = entry.hit.withVector(hit.vector()); // the keyword hit shows, with this vector
      }
      if (entry.denseRank == 0) {
        entry.denseRank = r + 1;
        entry.cosine = hit.score();
      }
    }
    boolean lead =
        !keyword.isEmpty()
            && settings.leads(
                keyword.get(0).score(), keyword.size() > 1 ? keyword.get(1).score() : null);
    List<Fused> fused = new ArrayList<>(entries.size());
    for (Entry entry : entries.values()) {
      double score = 0;
      if (entry.keywordRank > 0) {
        score += 1 / (k + entry.keywordRank);
      }
      if (entry.denseRank > 0) {
        score += settings.weight() / (k + entry.denseRank);
      }
      fused.add(
          new Fused(
              entry.hit,
              entry.keywordRank,
              entry.denseRank,
              entry.cosine,
              Math.min(1.0, score / best),
              false));
    }
    if (lead) {
      // BM25's clear winner scores as much as the best paragraph, and wins the tie by its rank
      double top = fused.stream().mapToDouble(Fused::score).max().orElse(0);
      for (int i = 0; i < fused.size(); i++) {
        Fused f = fused.get(i);
        if (f.keywordRank() == 1) {
          fused.set(
              i,
              new Fused(f.hit(), 1, f.denseRank(), f.denseScore(), Math.max(f.score(), top), true));
        }
      }
    }
    fused.sort(
        Comparator.comparingDouble((Fused f) -> -f.score())
            .thenComparingInt(f -> f.keywordRank() == 0 ? Integer.MAX_VALUE : f.keywordRank())
            .thenComparingInt(f -> f.denseRank() == 0 ? Integer.MAX_VALUE : f.denseRank()));
    return fused.size() > limit ? List.copyOf(fused.subList(0, limit)) : List.copyOf(fused);
  }

  /**
   * One paragraph: its bucket, file and text (a file's paragraphs are distinct by position). Its
   * hash reads the text's length and at most its first and last 32 characters: a daily note's
   * paragraphs run to thousands of characters, and hashing each whole cost more than the fusion
   * (equal hashes still compare the whole text).
   */
  private record Paragraph(Bucket bucket, WorkspacePath path, String text) {
    private static final int HASHED_ENDS = 32;

    static Paragraph of(KeywordHit hit) {
      return new Paragraph(hit.bucket(), hit.path(), hit.text());
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Paragraph that
          && text.equals(that.text)
          && path.equals(that.path)
          && bucket.equals(that.bucket);
    }

    @Override
    public int hashCode() {
      int length = text.length();
      int hash = 31 * (31 * bucket.hashCode() + path.hashCode()) + length;
      int head = Math.min(length, HASHED_ENDS);
      for (int i = 0; i < head; i++) {
        hash = 31 * hash + text.charAt(i);
      }
      for (int i = Math.max(head, length - HASHED_ENDS); i < length; i++) {
        hash = 31 * hash + text.charAt(i);
      }
      return hash;
    }
  }

  /** A paragraph's hit to show, its 1-based rank in each list (0: not in it) and its cosine. */
  private static final class Entry {
    private KeywordHit hit;
    private int keywordRank;
    private int denseRank;
    private double cosine;

    private Entry(KeywordHit hit) {
      this.hit = hit;
    }
  }
}
