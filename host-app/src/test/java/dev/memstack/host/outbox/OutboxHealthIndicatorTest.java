package dev.memstack.host.outbox;

import static dev.memstack.host.outbox.Turns.turn;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

class OutboxHealthIndicatorTest {

  @TempDir Path dir;

  private final TestMembers members = new TestMembers();
  private OutboxEngine outbox;

  @AfterEach
  void close() {
    if (outbox != null) {
      outbox.close();
    }
  }

  private OutboxEngine open() {
    outbox =
        OutboxEngine.onDisk(
            dir, Turns.fastRetry(OutboxProperties.defaults()), members, Turns.calls());
    return outbox;
  }

  @Test
  void upWhileEveryProviderKeepsUp() {
    RecordingProvider a = new RecordingProvider("a");
    members.run(a);
    open().enqueue(turn("t1"), List.of("a"));
    Turns.eventually(() -> assertThat(a.received).hasSize(1));
    // the provider has the turn before the lane books it
    Turns.eventually(() -> assertThat(outbox.stats().get("a").pending()).isZero());

    Health health = new OutboxHealthIndicator(outbox, members, Duration.ofMillis(1)).health();

    assertThat(health.getStatus()).isEqualTo(Status.UP);
    assertThat(health.getDetails()).containsKeys("providers", "journal", "degradedLag");
  }

  @Test
  void degradedWhenATurnWaitsLongerThanTheLag() throws InterruptedException {
    members.stop("down");
    open().enqueue(turn("t1"), List.of("down"));
    Thread.sleep(30);

    Health late = new OutboxHealthIndicator(outbox, members, Duration.ofMillis(10)).health();
    Health patient = new OutboxHealthIndicator(outbox, members, Duration.ofMinutes(5)).health();

    assertThat(late.getStatus().getCode()).isEqualTo("DEGRADED");
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> providers =
        (Map<String, Map<String, Object>>) late.getDetails().get("providers");
    assertThat(providers.get("down")).containsEntry("pending", 1).containsEntry("lagging", true);
    assertThat(patient.getStatus()).isEqualTo(Status.UP);
  }

  @Test
  void anErasureWaitingForAProviderThatIsNotRunningDoesNotDegrade() throws InterruptedException {
    members.stop("away");
    open().erase(dev.memstack.spi.OwnerKey.of("user:1"));
    Thread.sleep(30);

    Health health = new OutboxHealthIndicator(outbox, members, Duration.ofMillis(10)).health();

    assertThat(health.getStatus()).isEqualTo(Status.UP);
  }
}
