package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The turns a host accepted per agent: the total and the last hour. */
class TurnActivityTest {

  private final MutableClock clock = MutableClock.at(Instant.parse("2026-04-02T10:00:30Z"));
  private final TurnActivity activity = new TurnActivity(clock);
  private final AgentId a1 = AgentId.of("a1");

  @Test
  @DisplayName("counts an agent's turns of the last hour and forgets older minutes")
  void countsTheLastHour() {
    activity.accepted(a1);
    clock.advance(Duration.ofMinutes(30));
    activity.accepted(a1);
    activity.accepted(a1);
    assertThat(activity.lastHour(a1)).isEqualTo(3);
    assertThat(activity.lastHour(AgentId.of("other"))).isZero();

    clock.advance(Duration.ofMinutes(30));
    assertThat(activity.lastHour(a1)).as("the first turn is an hour old").isEqualTo(2);
    activity.accepted(a1); // sixty minutes on: the first turn's slot of the ring, reused
    assertThat(activity.lastHour(a1)).isEqualTo(3);
    clock.advance(Duration.ofHours(2));
    assertThat(activity.lastHour(a1)).isZero();
    assertThat(activity.total(a1)).isEqualTo(4);
    assertThat(activity.agents()).containsExactly(a1);
  }

  @Test
  @DisplayName("keeps at most MAX_AGENTS agents, forgetting the one accepted from longest ago")
  void isBounded() {
    for (int i = 0; i <= TurnActivity.MAX_AGENTS; i++) {
      activity.accepted(AgentId.of("agent-" + i));
    }
    assertThat(activity.agents()).hasSize(TurnActivity.MAX_AGENTS);
    assertThat(activity.total(AgentId.of("agent-0"))).isZero();
    assertThat(activity.total(AgentId.of("agent-" + TurnActivity.MAX_AGENTS))).isEqualTo(1);
  }
}
