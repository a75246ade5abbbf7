package dev.memstack.builtin.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class HybridHitsTest {

  private static final Bucket TEAM = Bucket.team(AgentId.of("a1"));

  private static KeywordHit hit(String text, double score) {
    return new KeywordHit(
        TEAM, WorkspacePath.of("memory/2026-04-01.md"), 1, text, text, score, Instant.EPOCH, null);
  }

  private static DenseSettings settings(double weight) {
    return new DenseSettings(true, weight, 20, 0.3, 100);
  }

  @Test
  @DisplayName("a paragraph in both lists comes first; the heavier dense list wins the rest")
  void fusesByWeightedRank() {
    List<HybridHits.Fused> fused =
        HybridHits.fuse(
            List.of(hit("keyword only", 9), hit("both", 5)),
            List.of(hit("dense only", 0.9), hit("both", 0.8)),
            settings(3),
            10);
    assertThat(fused)
        .extracting(f -> f.hit().text())
        .containsExactly("both", "dense only", "keyword only");
    HybridHits.Fused both = fused.get(0);
    assertThat(both.keywordRank()).isEqualTo(2);
    assertThat(both.denseRank()).isEqualTo(2);
    assertThat(both.denseScore()).isEqualTo(0.8);
    // both lists' second place, over both lists' first place
    assertThat(both.score()).isCloseTo((1 / 22.0 + 3 / 22.0) / (1 / 21.0 + 3 / 21.0), within());
    assertThat(fused.get(2).denseRank()).isZero();
    assertThat(fused.get(2).denseScore()).isZero();
  }

  @Test
  @DisplayName("the keyword hit is kept for a paragraph in both lists (it carries the snippet)")
  void keepsTheKeywordHit() {
    KeywordHit keyword = hit("same", 4);
    List<HybridHits.Fused> fused =
        HybridHits.fuse(List.of(keyword), List.of(hit("same", 0.7)), settings(1), 10);
    assertThat(fused).hasSize(1);
    assertThat(fused.get(0).hit()).isSameAs(keyword);
    assertThat(fused.get(0).score()).isEqualTo(1.0);
  }

  @Test
  @DisplayName("with the dense weight 0 the keyword order stands, and the limit cuts the list")
  void weightZeroKeepsKeywordOrder() {
    List<HybridHits.Fused> fused =
        HybridHits.fuse(
            List.of(hit("k1", 3), hit("k2", 2), hit("k3", 1)),
            List.of(hit("k3", 0.9), hit("d1", 0.8)),
            settings(0),
            3);
    assertThat(fused).extracting(f -> f.hit().text()).containsExactly("k1", "k2", "k3");
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-9);
  }
}
