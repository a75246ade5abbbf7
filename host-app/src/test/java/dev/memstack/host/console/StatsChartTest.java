package dev.memstack.host.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The rows of several hosts merged into one point per interval. */
class StatsChartTest {

  private static final Instant T0 = Instant.parse("2026-04-02T10:00:00Z");

  @Test
  @DisplayName("one point per interval: the largest shared numbers, the sums of each host's own")
  void mergesTheHostsRowsPerInterval() {
    List<StatsSample> rows =
        List.of(
            StatsSample.ofHost("h1", T0.plusSeconds(5), 4, 1, 10),
            StatsSample.ofHost("h2", T0.plusSeconds(20), 6, 1, 3),
            StatsSample.ofAgent("h1", "a1", T0.plusSeconds(5), 100L, 2),
            StatsSample.ofAgent("h2", "a1", T0.plusSeconds(20), 101L, 5),
            StatsSample.ofAgent("h1", "a1", T0.plusSeconds(65), null, 1));

    List<StatsHistory.Point> points = StatsHistory.merge(rows, Duration.ofMinutes(1));

    assertThat(points)
        .containsExactly(
            new StatsHistory.Point(T0, 101L, 7L, 6L, 1L, 13L),
            new StatsHistory.Point(T0.plusSeconds(60), null, 1L, null, null, null));
  }

  @Test
  @DisplayName("no rows, no points")
  void noRowsNoPoints() {
    assertThat(StatsHistory.merge(List.of(), Duration.ofMinutes(1))).isEmpty();
  }
}
