package dev.memstack.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The recall ranker's score")
class RecallRankerTest {

  @Test
  @DisplayName("feedback factor: 1 without feedback, rising with log2(1 + n), 1.03 from 15 on")
  void feedbackFactor() {
    assertThat(RecallRanker.feedbackFactor(0)).isEqualTo(1.0);
    assertThat(RecallRanker.feedbackFactor(-3)).isEqualTo(1.0);
    assertThat(RecallRanker.feedbackFactor(1)).isCloseTo(1.0075, within(1e-12));
    assertThat(RecallRanker.feedbackFactor(3)).isCloseTo(1.015, within(1e-12));
    assertThat(RecallRanker.feedbackFactor(15)).isCloseTo(1.03, within(1e-12));
    assertThat(RecallRanker.feedbackFactor(16)).isEqualTo(RecallRanker.feedbackFactor(15));
    assertThat(RecallRanker.feedbackFactor(Long.MAX_VALUE)).isCloseTo(1.03, within(1e-12));
    for (long n = 1; n < 40; n++) {
      assertThat(RecallRanker.feedbackFactor(n))
          .isGreaterThanOrEqualTo(RecallRanker.feedbackFactor(n - 1));
    }
  }

  @Test
  @DisplayName("stays within [0, 1] and keeps the order of in-range factors, over random inputs")
  void staysWithinBoundsOverRandomInputs() {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 100_000; i++) {
      double relevance = random.nextDouble(-0.5, 1.5);
      double recency = random.nextDouble(-0.5, 1.5);
      double weight = random.nextDouble(-0.5, 1.5);
      long uses = random.nextInt(5) == 0 ? Long.MAX_VALUE : random.nextLong(-5, 100);
      double score =
          RecallRanker.score(relevance, recency, weight, RecallRanker.feedbackFactor(uses));
      assertThat(score)
          .as("score(%s, %s, %s, %s)", relevance, recency, weight, uses)
          .isBetween(0.0, 1.0);

      // in range, the score is the product over the largest feedback factor: order preserved
      double r1 = random.nextDouble();
      double r2 = random.nextDouble();
      double f = RecallRanker.feedbackFactor(random.nextLong(0, 30));
      double w = random.nextDouble();
      double t = random.nextDouble();
      if (r1 < r2) {
        assertThat(RecallRanker.score(r1, t, w, f))
            .isLessThanOrEqualTo(RecallRanker.score(r2, t, w, f));
      }
    }
    assertThat(RecallRanker.score(Double.NaN, 1, 1, 1)).isZero();
    assertThat(RecallRanker.score(1, 1, 1, RecallRanker.feedbackFactor(100))).isEqualTo(1.0);
    assertThat(RecallRanker.score(1, 1, 1, 1)).isCloseTo(1 / 1.03, within(1e-12));
  }

  @Test
  @DisplayName("feedback reorders two items only when their scores without it are within 3 %")
  void feedbackOnlyReordersNearTies() {
    double leader = 0.80;
    double withinBound = leader / 1.029; // 2.9 % behind
    double beyondBound = leader / 1.031; // 3.1 % behind
    double most = RecallRanker.feedbackFactor(Long.MAX_VALUE);

    assertThat(RecallRanker.score(withinBound, 1, 1, most))
        .isGreaterThan(RecallRanker.score(leader, 1, 1, 1));
    assertThat(RecallRanker.score(beyondBound, 1, 1, most))
        .isLessThan(RecallRanker.score(leader, 1, 1, 1));
  }
}
