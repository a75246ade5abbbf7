package dev.memstack.host.outbox;

import static dev.memstack.host.outbox.Turns.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.outbox.TurnOutboxFullException;
import dev.memstack.outbox.journal.Journal;
import dev.memstack.outbox.journal.MemoryJournal;
import dev.memstack.spi.OwnerKey;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
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
        OutboxEngine.onDisk(dir, Turns.fastRetry(OutboxSettings.defaults()), Turns.port(members));
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
    open().erase(OwnerKey.of("user:1"));
    Thread.sleep(30);

    Health health = new OutboxHealthIndicator(outbox, members, Duration.ofMillis(10)).health();

    assertThat(health.getStatus()).isEqualTo(Status.UP);
  }

  @Test
  void downOnceTheOutboxIsClosed() {
    open().close();

    Health health = new OutboxHealthIndicator(outbox, members, Duration.ofMinutes(5)).health();

    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
    assertThat(health.getDetails().get("refusing")).asString().contains("closed");
  }

  @Test
  void downWhileTheJournalIsFullAndUpAgainOnceItHasRoom() {
    members.stop("down");
    outbox =
        OutboxEngine.onDisk(
            dir,
            Turns.fastRetry(
                OutboxSettingsBuilder.defaults()
                    .segmentSizeBytes(4 * 1024L)
                    .maxJournalSizeBytes(8 * 1024L)
                    .build()),
            Turns.port(members));
    OutboxHealthIndicator indicator =
        new OutboxHealthIndicator(outbox, members, Duration.ofMinutes(5));
    assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

    int accepted = 0;
    try {
      for (; accepted < 200; accepted++) {
        outbox.enqueue(turn("t" + accepted), List.of("down"));
      }
    } catch (TurnOutboxFullException expected) {
      // the journal is at max-journal-size
    }

    assertThat(accepted).isBetween(1, 199);
    Health full = indicator.health();
    assertThat(full.getStatus()).isEqualTo(Status.DOWN);
    assertThat(full.getDetails().get("refusing")).asString().contains("max-journal-size");
  }

  @Test
  void downAfterAFailedJournalWriteUntilAWriteSucceeds() {
    RecordingProvider a = new RecordingProvider("a");
    members.run(a);
    AtomicBoolean failing = new AtomicBoolean(true);
    outbox =
        OutboxEngine.start(
            failingAppends(new MemoryJournal(), failing),
            Turns.fastRetry(OutboxSettings.defaults()),
            Turns.port(members));
    OutboxHealthIndicator indicator =
        new OutboxHealthIndicator(outbox, members, Duration.ofMinutes(5));

    assertThatThrownBy(() -> outbox.enqueue(turn("t1"), List.of("a")))
        .isInstanceOf(TurnOutboxFullException.class);
    Health broken = indicator.health();
    assertThat(broken.getStatus()).isEqualTo(Status.DOWN);
    assertThat(broken.getDetails().get("refusing")).asString().contains("disk on fire");

    failing.set(false);
    outbox.enqueue(turn("t2"), List.of("a"));
    assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
  }

  /** {@code journal}, but every append fails with an IOException while {@code failing} is set. */
  private static Journal failingAppends(Journal journal, AtomicBoolean failing) {
    return (Journal)
        Proxy.newProxyInstance(
            Journal.class.getClassLoader(),
            new Class<?>[] {Journal.class},
            (proxy, method, args) -> {
              if (method.getName().equals("append") && failing.get()) {
                throw new IOException("disk on fire");
              }
              try {
                return method.invoke(journal, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
