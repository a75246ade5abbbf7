package dev.memstack.vector.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.tck.HashingEmbedder;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.RecordingCoordination;
import dev.memstack.vector.lucene.LuceneMemoryVectorStore;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Decay across hosts")
class DecaySchedulerCoordinationTest {

  private static final LifecycleSettings SETTINGS =
      new LifecycleSettings(true, LocalTime.of(2, 0), Duration.ofDays(1), 0.9);

  @TempDir Path dir;
  private MemoryVectorStore store;
  private final MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T02:00:00.120Z"));

  @BeforeEach
  void open() {
    store =
        LuceneMemoryVectorStore.open(
            dir, new StoreEmbedder(new HashingEmbedder(), 8), false, "reembed");
  }

  @AfterEach
  void close() {
    store.close();
  }

  private DecayScheduler host(RecordingCoordination coordination) {
    return new DecayScheduler(new DecayJob(store, clock), clock, SETTINGS, coordination);
  }

  @Test
  @DisplayName("of two hosts whose timers fire at one scheduled time, one decays")
  void oneOfTwoHostsDecaysPerScheduledTime() {
    RecordingCoordination shared = RecordingCoordination.shared(clock);
    DecayScheduler first = host(shared);
    DecayScheduler second = host(shared);

    first.runSafely();
    clock.advance(Duration.ofSeconds(3)); // the other host's timer, a little later
    second.runSafely();

    assertThat(first.lastReport()).isNotNull();
    assertThat(second.lastReport()).as("skipped: run by the first host").isNull();
    assertThat(shared.claims())
        .containsExactly("decay@2026-12-01T02:00:00Z", "decay@2026-12-01T02:00:00Z (taken)");

    clock.advance(Duration.ofDays(1));
    second.runSafely();
    assertThat(second.lastReport()).as("the next day's run").isNotNull();
  }

  @Test
  @DisplayName("an unreachable coordination skips the run without failing")
  void anUnreachableCoordinationSkipsTheRun() {
    DecayScheduler scheduler = host(RecordingCoordination.shared(clock).refuseAll(true));
    scheduler.runSafely();
    assertThat(scheduler.lastReport()).isNull();
  }

  @Test
  @DisplayName("on one host nothing is claimed")
  void onOneHostNothingIsClaimed() {
    RecordingCoordination local = RecordingCoordination.inProcess(clock);
    DecayScheduler scheduler = host(local);
    scheduler.runSafely();
    scheduler.runSafely();
    assertThat(scheduler.lastReport()).isNotNull();
    assertThat(local.claims()).isEmpty();
  }
}
