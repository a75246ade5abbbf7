package dev.memstack.host.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What every store of the console's samples keeps: an agent's rows with the hosts' own rows, every
 * host's, oldest first, no other agent's, and old rows deleted.
 */
abstract class StatsSamplesConformance {

  static final Instant T0 = Instant.parse("2026-04-02T10:00:00Z");

  /** A store; a second call stands for a second host on the same storage where there is one. */
  abstract StatsSamples store();

  @Test
  @DisplayName("answers an agent's rows and the hosts' rows, oldest first, and no other agent's")
  void answersAnAgentsRowsWithTheHostRows() {
    StatsSamples samples = store();
    samples.add(StatsSample.ofHost("h1", T0.plusSeconds(60), 3, 1, 7));
    samples.add(StatsSample.ofAgent("h1", "a1", T0.plusSeconds(60), 12L, 2));
    samples.add(StatsSample.ofAgent("h1", "a1", T0, null, 0));
    samples.add(StatsSample.ofAgent("h1", "a2", T0.plusSeconds(60), 99L, 5));

    List<StatsSample> rows = samples.since("a1", T0);
    assertThat(rows).hasSize(3);
    assertThat(rows.get(0)).isEqualTo(StatsSample.ofAgent("h1", "a1", T0, null, 0));
    assertThat(rows.subList(1, 3))
        .containsExactlyInAnyOrder(
            StatsSample.ofHost("h1", T0.plusSeconds(60), 3, 1, 7),
            StatsSample.ofAgent("h1", "a1", T0.plusSeconds(60), 12L, 2));
    assertThat(samples.since("a1", T0.plusSeconds(1))).hasSize(2);
    assertThat(samples.since("a3", T0))
        .containsExactly(StatsSample.ofHost("h1", T0.plusSeconds(60), 3, 1, 7));
  }

  @Test
  @DisplayName("deletes the rows taken before a time and keeps the rest")
  void deletesOldRows() {
    StatsSamples samples = store();
    samples.add(StatsSample.ofHost("h1", T0, 0, 0, 0));
    samples.add(StatsSample.ofAgent("h1", "a1", T0, 1L, 0));
    samples.add(StatsSample.ofAgent("h1", "a1", T0.plusSeconds(3600), 2L, 0));

    assertThat(samples.deleteBefore(T0.plusSeconds(1))).isEqualTo(2);
    assertThat(samples.since("a1", T0))
        .containsExactly(StatsSample.ofAgent("h1", "a1", T0.plusSeconds(3600), 2L, 0));
    assertThat(samples.deleteBefore(T0.plusSeconds(1))).isZero();
  }
}
