package dev.memstack.host.outbox;

import static dev.memstack.host.outbox.Turns.eventually;
import static dev.memstack.host.outbox.Turns.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.outbox.OwnerErasure;
import dev.memstack.outbox.ProviderErasure;
import dev.memstack.spi.OwnerKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine behaves the same whatever journal keeps its records: delivery order, batching,
 * retries, and erasure (an erased owner's queued turns are never delivered afterwards, and an
 * erasure waits for a provider that is not running).
 */
class OutboxEngineJournalsTest {

  private static final Duration PATIENCE = Duration.ofSeconds(10);

  @TempDir Path dir;

  private final TestMembers members = new TestMembers();
  private final List<OutboxEngine> opened = new ArrayList<>();

  @AfterEach
  void closeAll() {
    opened.forEach(OutboxEngine::close);
  }

  private OutboxEngine open(String type) {
    return open(type, OutboxSettings.defaults().maxAttempts());
  }

  private OutboxEngine open(String type, int maxAttempts) {
    OutboxSettings settings =
        OutboxSettingsBuilder.from(Turns.fastRetry(OutboxSettings.defaults()))
            .eraseWait(Duration.ofSeconds(5))
            .maxAttempts(maxAttempts)
            .build();
    OutboxEngine engine =
        switch (type) {
          case "journal" -> OutboxEngine.onDisk(dir, settings, Turns.port(members));
          case "memory" -> OutboxEngine.inMemory(settings, Turns.port(members));
          default -> throw new IllegalArgumentException(type);
        };
    opened.add(engine);
    return engine;
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void turnsArriveInOrderInBatchesForAProviderThatTakesThem(String type) {
    RecordingProvider a = new RecordingProvider("a");
    a.batches = true;
    a.delayMillis = 1;
    RecordingProvider b = new RecordingProvider("b");
    members.run(a).run(b);
    OutboxEngine engine = open(type);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      ids.add("t" + i);
      engine.enqueue(turn("t" + i), List.of("a", "b"));
    }

    eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactlyElementsOf(ids));
    eventually(PATIENCE, () -> assertThat(b.storedIds()).containsExactlyElementsOf(ids));
    assertThat(engine.journalStats().type()).isEqualTo(type);
    eventually(PATIENCE, () -> assertThat(engine.stats().get("a").pending()).isZero());
    assertThat(engine.stats().get("a").delivered()).isEqualTo(100);
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void aFailingProviderIsRetriedUntilItTakesEveryTurn(String type) {
    RecordingProvider a = RecordingProvider.down("a");
    members.run(a);
    OutboxEngine engine = open(type);
    engine.enqueue(turn("t1"), List.of("a"));
    engine.enqueue(turn("t2"), List.of("a"));

    eventually(PATIENCE, () -> assertThat(engine.stats().get("a").failedAttempts()).isPositive());
    a.failing = false;

    eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactly("t1", "t2"));
    assertThat(engine.stats().get("a").lastError()).contains("backend unreachable");
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void anErasedOwnersQueuedTurnsAreNeverDeliveredAfterwards(String type) {
    RecordingProvider a = new RecordingProvider("a");
    a.poison = "mine-1"; // holds the queue while the erasure arrives
    a.poisonFailures.set(Integer.MAX_VALUE);
    members.run(a);
    OutboxEngine engine = open(type, Integer.MAX_VALUE); // the poison is never parked
    engine.enqueue(turn("mine-1", "user:1"), List.of("a"));
    engine.enqueue(turn("other-1", "user:2"), List.of("a"));
    engine.enqueue(turn("mine-2", "user:1"), List.of("a"));
    eventually(PATIENCE, () -> assertThat(engine.stats().get("a").failedAttempts()).isPositive());

    OwnerErasure erasure = engine.erase(OwnerKey.of("user:1"));

    assertThat(erasure.providers())
        .singleElement()
        .satisfies(
            outcome -> {
              assertThat(outcome.outcome()).isEqualTo(ProviderErasure.ERASED);
              assertThat(outcome.droppedPending()).isEqualTo(2);
            });
    eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactly("other-1"));
    engine.enqueue(turn("mine-3", "user:1"), List.of("a"));
    eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactly("other-1", "mine-3"));
    assertThat(a.received).doesNotContain("mine-1", "mine-2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void anErasureWaitsForAProviderThatIsNotRunningAndIsDoneWhenItComesBack(String type) {
    RecordingProvider a = new RecordingProvider("a");
    members.run(a);
    OutboxEngine engine = open(type);
    engine.enqueue(turn("t1", "user:1"), List.of("a"));
    eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactly("t1"));
    members.stop("a");

    OwnerErasure erasure = engine.erase(OwnerKey.of("user:1"));

    assertThat(erasure.providers())
        .singleElement()
        .satisfies(outcome -> assertThat(outcome.outcome()).isEqualTo(ProviderErasure.QUEUED));
    assertThat(a.events).doesNotContain("forget:user:1");
    members.run(a);
    eventually(PATIENCE, () -> assertThat(a.events).contains("forget:user:1"));
    assertThat(a.storedIds()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void closingNeverInterruptsADeliveryThatIsRunning(String type) throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    RecordingProvider slow =
        new RecordingProvider("slow") {
          @Override
          public synchronized void syncTurn(dev.memstack.spi.Turn turn) {
            entered.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              interrupted.set(true);
            }
            interrupted.compareAndSet(false, Thread.currentThread().isInterrupted());
            super.syncTurn(turn);
          }
        };
    members.run(slow);
    OutboxEngine engine = open(type);
    engine.enqueue(turn("t1"), List.of("slow"));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

    engine.close();
    release.countDown();

    eventually(PATIENCE, () -> assertThat(slow.received).containsExactly("t1"));
    assertThat(interrupted).isFalse();
  }
}
