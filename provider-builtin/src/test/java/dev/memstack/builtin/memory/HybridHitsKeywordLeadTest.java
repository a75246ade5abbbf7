package dev.memstack.builtin.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A paragraph that BM25 ranks first by a clear lead (a name, a code, a rare word only it holds)
 * keeps a place at the top of the fused list, even when the dense list, three times heavier, does
 * not have it at all. By plain weighted reciprocal rank fusion (weight 3, k 20) it would score
 * {@code 1 / 21}, and every one of the dense list's first 42 paragraphs ({@code 3 / (20 + r)} for r
 * up to 42, {@code 3 / 63 = 1 / 21} at r 43, a tie it wins by its keyword rank) would come before
 * it: 43rd of the fused list.
 */
class HybridHitsKeywordLeadTest {

  private static final Bucket TEAM = Bucket.team(AgentId.of("a1"));

  private static KeywordHit hit(String text, double score) {
    return new KeywordHit(
        TEAM, WorkspacePath.of("memory/2026-04-01.md"), 1, text, text, score, Instant.EPOCH, null);
  }

  /** Ten keyword hits, {@code first} scoring {@code firstScore}, the others 5.0 down to 4.1. */
  private static List<KeywordHit> keyword(String first, double firstScore) {
    List<KeywordHit> hits = new ArrayList<>(List.of(hit(first, firstScore)));
    for (int i = 2; i <= 10; i++) {
      hits.add(hit("keyword " + i, 5.0 - (i - 2) * 0.1));
    }
    return hits;
  }

  /** A dense list of 100 paragraphs, none in the keyword list. */
  private static List<KeywordHit> dense() {
    List<KeywordHit> hits = new ArrayList<>();
    for (int r = 1; r <= 100; r++) {
      hits.add(hit("dense " + r, 0.9 - r * 0.001));
    }
    return hits;
  }

  private static int rankOf(List<HybridHits.Fused> fused, String text) {
    for (int i = 0; i < fused.size(); i++) {
      if (fused.get(i).hit().text().equals(text)) {
        return i + 1;
      }
    }
    return 0;
  }

  @Test
  @DisplayName("BM25's clear first, absent from 100 dense hits, stays in the first three")
  void clearKeywordFirstStaysOnTop() {
    List<HybridHits.Fused> fused =
        HybridHits.fuse(keyword("order ZX-4471-QB", 15.0), dense(), DenseSettings.defaults(), 110);

    assertThat(rankOf(fused, "order ZX-4471-QB")).isBetween(1, 3);
  }

  @Test
  @DisplayName("BM25's first without a clear lead is fused as before: 43rd")
  void keywordFirstWithoutLeadIsFusedByRank() {
    List<HybridHits.Fused> fused =
        HybridHits.fuse(keyword("ordinary words", 5.5), dense(), DenseSettings.defaults(), 110);

    // 1 / 21 ties with 3 / (20 + 43) and wins the tie by its keyword rank
    assertThat(rankOf(fused, "ordinary words")).isEqualTo(43);
    assertThat(fused.get(0).hit().text()).isEqualTo("dense 1");
  }

  @Test
  @DisplayName("the keyword list's only hit leads it")
  void onlyKeywordHitLeads() {
    List<HybridHits.Fused> fused =
        HybridHits.fuse(List.of(hit("quokka", 4.2)), dense(), DenseSettings.defaults(), 110);

    assertThat(rankOf(fused, "quokka")).isBetween(1, 3);
  }

  @Test
  @DisplayName("with keyword-lead 0 the plain fusion places even a clear first 43rd")
  void leadOffKeepsPlainFusion() {
    DenseSettings off = new DenseSettings(true, 3.0, 20, 0.3, 100, 0);
    List<HybridHits.Fused> fused =
        HybridHits.fuse(keyword("order ZX-4471-QB", 15.0), dense(), off, 110);

    assertThat(rankOf(fused, "order ZX-4471-QB")).isEqualTo(43);
  }

  @Test
  @DisplayName("a first hit short of the lead is fused by rank; the explain signal names a lead")
  void leadIsAThresholdAndIsSignalled() {
    // 9.9 is less than twice 5.0: plain fusion
    assertThat(
            rankOf(
                HybridHits.fuse(keyword("almost", 9.9), dense(), DenseSettings.defaults(), 110),
                "almost"))
        .isEqualTo(43);
    List<HybridHits.Fused> fused =
        HybridHits.fuse(keyword("clear", 10.0), dense(), DenseSettings.defaults(), 110);
    assertThat(fused.get(0).hit().text()).isEqualTo("clear");
    assertThat(fused.get(0).keywordLead()).isTrue();
    // the score of the best other paragraph, the dense list's first: 3 / 21 over 4 / 21
    assertThat(fused.get(0).score()).isCloseTo(0.75, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(fused.get(1).hit().text()).isEqualTo("dense 1");
    assertThat(fused.get(1).score()).isEqualTo(fused.get(0).score());
    assertThat(fused.subList(1, fused.size())).noneMatch(HybridHits.Fused::keywordLead);
  }

  @Test
  @DisplayName("dense-keyword-lead: default 2, read from the config, 0 or 1-100")
  void readsTheLead() {
    assertThat(DenseSettings.defaults().keywordLead()).isEqualTo(2.0);
    assertThat(
            DenseSettings.from(
                    ProviderConfig.of(
                        "memstack.providers.builtin.config.", Map.of("dense-keyword-lead", "3.5")))
                .keywordLead())
        .isEqualTo(3.5);
    for (String bad : List.of("0.5", "-1", "101")) {
      assertThatThrownBy(
              () ->
                  DenseSettings.from(
                      ProviderConfig.of(
                          "memstack.providers.builtin.config.", Map.of("dense-keyword-lead", bad))))
          .isInstanceOf(ProviderConfigException.class)
          .hasMessageContaining("dense-keyword-lead");
    }
  }
}
