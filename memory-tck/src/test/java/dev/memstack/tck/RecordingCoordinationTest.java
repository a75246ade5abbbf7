package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.Coordination;
import dev.memstack.spi.ProviderUnavailableException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RecordingCoordinationTest {

  @Test
  void recordsCallsAndHeldLocksAndRefusesWhenAsked() {
    RecordingCoordination coordination = RecordingCoordination.shared(MutableClock.atSystemTime());
    assertThat(coordination.shared()).isTrue();
    assertThat(coordination.claimRun("decay", "1")).isTrue();
    assertThat(coordination.claimRun("decay", "1")).isFalse();
    Coordination.Lease lease = coordination.tryLock("facts:a", Duration.ofMinutes(1)).orElseThrow();
    assertThat(coordination.tryLock("facts:a", Duration.ofMinutes(1))).isEmpty();
    assertThat(coordination.held()).containsExactly("facts:a");
    lease.close();
    assertThat(coordination.held()).isEmpty();
    assertThat(coordination.tryStartCooldown("a|o", Duration.ofMinutes(1))).isTrue();
    assertThat(coordination.claims()).containsExactly("decay@1", "decay@1 (taken)");
    assertThat(coordination.locksTaken()).containsExactly("facts:a");
    assertThat(coordination.cooldownsStarted()).containsExactly("a|o");

    coordination.refuseAll(true);
    assertThatThrownBy(() -> coordination.addAndGet("n", 1))
        .isInstanceOf(ProviderUnavailableException.class);
    assertThat(RecordingCoordination.inProcess(MutableClock.atSystemTime()).shared()).isFalse();
  }
}
