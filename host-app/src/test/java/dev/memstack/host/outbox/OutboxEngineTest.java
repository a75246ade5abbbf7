package dev.memstack.host.outbox;

import static dev.memstack.host.outbox.Turns.eventually;
import static dev.memstack.host.outbox.Turns.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.outbox.OutboxStats;
import dev.memstack.outbox.OwnerErasure;
import dev.memstack.outbox.ProviderErasure;
import dev.memstack.outbox.TurnOutboxFullException;
import dev.memstack.spi.OwnerKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutboxEngineTest {

  private static final List<String> AB = List.of("a", "b");

  @TempDir Path dir;

  private final TestMembers members = new TestMembers();
  private final List<OutboxEngine> opened = new ArrayList<>();
  private OutboxSettings settings =
      OutboxSettingsBuilder.defaults().eraseWait(Duration.ofSeconds(5)).build();

  @AfterEach
  void closeAll() {
    opened.forEach(OutboxEngine::close);
  }

  private OutboxEngine open() {
    OutboxEngine outbox = OutboxEngine.onDisk(dir, Turns.fastRetry(settings), Turns.port(members));
    opened.add(outbox);
    return outbox;
  }

  /** Hands {@code count} turns t0, t1, ... to {@code outbox} for {@code recipients}. */
  private static void enqueue(OutboxEngine outbox, int count, List<String> recipients) {
    for (int i = 0; i < count; i++) {
      outbox.enqueue(turn("t" + i), recipients);
    }
  }

  /** Opens the outbox with {@code running} up. */
  private OutboxEngine openWith(RecordingProvider... running) {
    for (RecordingProvider provider : running) {
      members.run(provider);
    }
    return open();
  }

  /** An outbox on 4 KB segments with {@code running} up and {@code stopped} down. */
  private OutboxEngine openOnSmallSegments(RecordingProvider running, String stopped) {
    settings = OutboxSettingsBuilder.from(settings).segmentSizeBytes(4 * 1024L).build();
    members.run(running).stop(stopped);
    return open();
  }

  /** Maintains the journal of {@code outbox} until one segment file is left. */
  private void awaitOneSegmentLeft(OutboxEngine outbox) {
    eventually(
        () -> {
          outbox.maintain();
          assertThat(segmentFiles()).hasSize(1);
        });
  }

  private static List<String> ids(String prefix, int count) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(prefix + i);
    }
    return ids;
  }

  @Test
  void everyTurnReachesEveryRecipientInTheOrderItWasAccepted() throws Exception {
    RecordingProvider a = new RecordingProvider("a");
    RecordingProvider b = new RecordingProvider("b");
    b.delayMillis = 2;
    OutboxEngine outbox = openWith(a, b);

    ExecutorService submitters = Executors.newFixedThreadPool(4);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int thread = t;
      done.add(
          submitters.submit(
              () -> {
                for (int i = 0; i < 50; i++) {
                  outbox.enqueue(turn("t" + thread + "-" + i), AB);
                }
              }));
    }
    for (Future<?> f : done) {
      f.get(30, TimeUnit.SECONDS);
    }
    submitters.shutdown();

    eventually(() -> assertThat(b.received).hasSize(200));
    assertThat(a.received).hasSize(200).doesNotHaveDuplicates();
    // both saw the one journal order, and each submitter's turns in the order it sent them
    assertThat(b.received).containsExactlyElementsOf(a.received);
    for (int t = 0; t < 4; t++) {
      String prefix = "t" + t + "-";
      assertThat(a.received.stream().filter(id -> id.startsWith(prefix)))
          .containsExactlyElementsOf(ids(prefix, 50));
    }
    assertThat(outbox.stats().get("a").delivered()).isEqualTo(200);
    assertThat(outbox.stats().get("b").pending()).isZero();
  }

  @Test
  void aFailingProviderIsRetriedWhileTheOtherKeepsReceiving() {
    RecordingProvider a = new RecordingProvider("a");
    RecordingProvider b = RecordingProvider.down("b");
    OutboxEngine outbox = openWith(a, b);

    enqueue(outbox, 20, AB);

    eventually(() -> assertThat(a.storedIds()).containsExactlyElementsOf(ids("t", 20)));
    eventually(() -> assertThat(b.syncAttempts.get()).isGreaterThan(3));
    OutboxStats failing = outbox.stats().get("b");
    assertThat(failing.pending()).isEqualTo(20);
    assertThat(failing.failedAttempts()).isGreaterThan(2);
    assertThat(failing.lastError()).contains("backend unreachable").doesNotContain("s3cret");
    assertThat(b.stored).isEmpty();

    b.failing = false;
    eventually(() -> assertThat(b.storedIds()).containsExactlyElementsOf(ids("t", 20)));
    eventually(() -> assertThat(outbox.stats().get("b").pending()).isZero());
  }

  /**
   * Opens the outbox while {@code provider} fails, so that {@code count} turns t0, t1, ... wait for
   * it together, then lets the provider work again.
   */
  private OutboxEngine backlogFor(RecordingProvider provider, int count) {
    provider.failing = true;
    OutboxEngine outbox = openWith(provider);
    enqueue(outbox, count, List.of(provider.id()));
    eventually(() -> assertThat(provider.syncAttempts.get()).isPositive());
    provider.failing = false;
    return outbox;
  }

  @Test
  void turnsThatWaitTogetherReachTheProviderInBatchesInOrder() {
    RecordingProvider a = new RecordingProvider("a");
    a.batches = true;
    OutboxEngine outbox = backlogFor(a, 100);

    eventually(() -> assertThat(a.storedIds()).containsExactlyElementsOf(ids("t", 100)));
    assertThat(a.received).as("each turn handed over once").doesNotHaveDuplicates();
    assertThat(a.batchSizes).contains(settings.deliveryBatch()).allMatch(n -> n <= 32);
    eventually(() -> assertThat(outbox.stats().get("a").delivered()).isEqualTo(100));
  }

  @Test
  void aTurnThatFailsInsideABatchHoldsUpOnlyItselfAndWhatFollows() {
    RecordingProvider a = new RecordingProvider("a");
    a.batches = true;
    a.poison = "t5";
    a.poisonFailures.set(3);
    OutboxEngine outbox = backlogFor(a, 20);

    eventually(() -> assertThat(a.storedIds()).containsExactlyElementsOf(ids("t", 20)));
    assertThat(a.received).containsExactlyElementsOf(ids("t", 20));
    OutboxStats stats = outbox.stats().get("a");
    assertThat(stats.delivered()).isEqualTo(20);
    assertThat(stats.failedAttempts()).isGreaterThanOrEqualTo(3);
    assertThat(stats.lastError()).contains("cannot store t5");
  }

  /** A delivery batch of one, or a provider that does not claim batches, gets turns one by one. */
  @ParameterizedTest(name = "a delivery batch of one: {0}")
  @ValueSource(booleans = {true, false})
  void turnsGoOverOneByOneWithADeliveryBatchOfOneOrToAProviderWithoutBatches(boolean batchOfOne) {
    if (batchOfOne) {
      settings = OutboxSettingsBuilder.from(settings).deliveryBatch(1).build();
    }
    RecordingProvider a = new RecordingProvider("a");
    a.batches = batchOfOne; // the provider claims batches only where the batch is one
    backlogFor(a, 10);

    eventually(() -> assertThat(a.storedIds()).containsExactlyElementsOf(ids("t", 10)));
    assertThat(a.batchSizes).isEmpty();
  }

  @Test
  void aRestartedOutboxDeliversWhatWasPendingAndNothingTwice() {
    RecordingProvider a = new RecordingProvider("a");
    members.run(a).stop("b");
    OutboxEngine first = open();
    enqueue(first, 30, AB);
    eventually(() -> assertThat(a.received).hasSize(30));
    first.close();

    RecordingProvider b = new RecordingProvider("b");
    RecordingProvider a2 = new RecordingProvider("a");
    OutboxEngine second = openWith(a2, b);
    eventually(() -> assertThat(b.received).containsExactlyElementsOf(ids("t", 30)));
    second.enqueue(turn("t30"), AB);
    eventually(() -> assertThat(a2.received).containsExactly("t30"));
    eventually(() -> assertThat(b.received).hasSize(31));
    // the provider has the turn before the lane books it
    eventually(() -> assertThat(second.stats().get("b").pending()).isZero());
    assertThat(b.received).doesNotHaveDuplicates();
  }

  @Test
  void aProviderThatWasDownAtTheRestartGetsItsTurnsWhenItComesBack() {
    members.stop("a");
    OutboxEngine first = open();
    enqueue(first, 10, List.of("a"));
    assertThat(first.stats().get("a").pending()).isEqualTo(10);
    first.close();

    OutboxEngine second = open();
    assertThat(second.stats().get("a").pending()).isEqualTo(10);
    RecordingProvider a = new RecordingProvider("a");
    members.run(a);
    eventually(() -> assertThat(a.storedIds()).containsExactlyElementsOf(ids("t", 10)));
  }

  @Test
  void pastMaxPendingTurnsForOneProviderNewTurnsAreRefused() {
    settings = OutboxSettingsBuilder.from(settings).maxPending(5).build();
    members.stop("slow");
    RecordingProvider fast = new RecordingProvider("fast");
    OutboxEngine outbox = openWith(fast);
    enqueue(outbox, 5, List.of("fast", "slow"));
    // "fast" has taken its five (on a busy machine its lane may lag): only "slow" is full
    eventually(() -> assertThat(outbox.stats().get("fast").pending()).isZero());

    assertThatThrownBy(() -> outbox.enqueue(turn("t5"), List.of("fast", "slow")))
        .isInstanceOf(TurnOutboxFullException.class)
        .hasMessageContaining("slow")
        .satisfies(e -> assertThat(((TurnOutboxFullException) e).providerId()).isEqualTo("slow"));
    // nothing of the refused turn was kept, and the other provider is not limited by it
    assertThat(outbox.journalStats().nextPosition()).isEqualTo(5);
    outbox.enqueue(turn("t6"), List.of("fast"));
  }

  @Test
  void pastTheJournalSizeLimitNewTurnsAreRefused() {
    settings =
        OutboxSettingsBuilder.from(settings)
            .segmentSizeBytes(4 * 1024L)
            .maxJournalSizeBytes(8 * 1024L)
            .build();
    members.stop("down");
    OutboxEngine outbox = open();
    int accepted = 0;
    TurnOutboxFullException refusal = null;
    for (int i = 0; i < 100 && refusal == null; i++) {
      try {
        outbox.enqueue(turn("t" + i), List.of("down"));
        accepted++;
      } catch (TurnOutboxFullException e) {
        refusal = e;
      }
    }
    assertThat(refusal).isNotNull();
    assertThat(refusal.providerId()).isNull();
    assertThat(refusal.getMessage()).contains("max-journal-size");
    assertThat(accepted).isBetween(10, 90);
    assertThat(outbox.journalStats().bytes()).isLessThanOrEqualTo(8 * 1024);
  }

  @Test
  void deliveredSegmentsAreDeletedAndAProviderThatIsDownKeepsThemUntilItCatchesUp()
      throws IOException {
    RecordingProvider a = new RecordingProvider("a");
    OutboxEngine outbox = openOnSmallSegments(a, "b");
    enqueue(outbox, 150, AB);
    eventually(() -> assertThat(a.received).hasSize(150));
    outbox.maintain();
    int held = segmentFiles().size();
    assertThat(held).isGreaterThan(3);

    RecordingProvider b = new RecordingProvider("b");
    members.run(b);
    eventually(() -> assertThat(b.received).hasSize(150));
    awaitOneSegmentLeft(outbox);
    assertThat(outbox.journalStats().segments()).isEqualTo(1);
  }

  @Test
  void anErasureDropsThePendingTurnsOfThatOwnerOnly() {
    members.stop("a");
    OutboxEngine outbox = open();
    outbox.enqueue(turn("a1", "user:1"), List.of("a"));
    outbox.enqueue(turn("b1", "user:2"), List.of("a"));
    outbox.enqueue(turn("a2", "user:1"), List.of("a"));
    outbox.enqueue(turn("b2", "user:2"), List.of("a"));

    OwnerErasure erasure = outbox.erase(OwnerKey.of("user:1"));
    outbox.enqueue(turn("a3", "user:1"), List.of("a"));

    assertThat(erasure.providers()).hasSize(1);
    ProviderErasure outcome = erasure.providers().get(0);
    assertThat(outcome.id()).isEqualTo("a");
    assertThat(outcome.outcome()).isEqualTo(ProviderErasure.QUEUED);
    assertThat(outcome.droppedPending()).isEqualTo(2);
    assertThat(outbox.stats().get("a").pending()).isEqualTo(4); // b1, b2, the erasure, a3

    RecordingProvider a = new RecordingProvider("a");
    members.run(a);
    eventually(
        () ->
            assertThat(a.events).containsExactly("turn:b1", "turn:b2", "forget:user:1", "turn:a3"));
  }

  @Test
  void aRunningProviderErasesAtOnceAndAProviderThatCannotForgetIsReported() {
    RecordingProvider forgetful = new RecordingProvider("forgetful");
    RecordingProvider keeper = new RecordingProvider("keeper", false);
    OutboxEngine outbox = openWith(forgetful, keeper);
    outbox.enqueue(turn("t1", "user:1"), List.of("forgetful", "keeper"));
    outbox.enqueue(turn("t2", "user:1"), List.of("forgetful", "keeper"));
    eventually(() -> assertThat(keeper.received).hasSize(2));
    eventually(() -> assertThat(forgetful.received).hasSize(2));

    OwnerErasure erasure = outbox.erase(OwnerKey.of("user:1"));

    assertThat(erasure.providers())
        .extracting(ProviderErasure::id, ProviderErasure::outcome, ProviderErasure::removed)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("forgetful", ProviderErasure.ERASED, 2L),
            org.assertj.core.groups.Tuple.tuple("keeper", ProviderErasure.UNSUPPORTED, 0L));
    assertThat(forgetful.stored).isEmpty();
    eventually(() -> assertThat(outbox.stats().get("keeper").pending()).isZero());
    eventually(() -> assertThat(outbox.stats().get("forgetful").pending()).isZero());
  }

  @Test
  void anErasureJumpsTheQueueOfAProviderThatIsBehind() {
    RecordingProvider slow = new RecordingProvider("slow");
    members.run(slow);
    settings = OutboxSettingsBuilder.from(settings).eraseWait(Duration.ofSeconds(10)).build();
    OutboxEngine outbox = open();
    slow.delayMillis = 200;
    for (int i = 0; i < 40; i++) {
      outbox.enqueue(turn("t" + i, i % 2 == 0 ? "user:1" : "user:2"), List.of("slow"));
    }

    long start = System.nanoTime();
    OwnerErasure erasure = outbox.erase(OwnerKey.of("user:1"));
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    ProviderErasure outcome = erasure.providers().get(0);
    assertThat(outcome.outcome()).isEqualTo(ProviderErasure.ERASED);
    assertThat(outcome.droppedPending()).isBetween(15, 20);
    assertThat(tookMs).isLessThan(1_500); // not after the other turns at 200 ms each
    slow.delayMillis = 0;
    eventually(() -> assertThat(outbox.stats().get("slow").pending()).isZero());
    assertThat(slow.stored).allSatisfy(t -> assertThat(t.owner().value()).isEqualTo("user:2"));
    assertThat(slow.events.stream().filter(e -> e.startsWith("forget"))).hasSize(1);
  }

  @Test
  void aProviderThatIsDownGetsTheErasureWhenItComesBackEvenAfterARestart() {
    RecordingProvider down = new RecordingProvider("p");
    OutboxEngine first = openWith(down);
    first.enqueue(turn("t1", "user:1"), List.of("p"));
    eventually(() -> assertThat(down.stored).hasSize(1));
    down.failing = true;

    OwnerErasure erasure = first.erase(OwnerKey.of("user:1"));
    assertThat(erasure.providers().get(0).outcome()).isEqualTo(ProviderErasure.ERROR);
    assertThat(erasure.providers().get(0).detail()).contains("backend unreachable");
    eventually(() -> assertThat(down.forgetAttempts.get()).isGreaterThan(2));
    first.close();

    RecordingProvider back = new RecordingProvider("p");
    back.stored.add(turn("t1", "user:1"));
    OutboxEngine second = openWith(back);
    eventually(() -> assertThat(back.events).containsExactly("forget:user:1"));
    assertThat(back.stored).isEmpty();
    eventually(() -> assertThat(second.stats().get("p").pending()).isZero());
  }

  @Test
  void anErasureForAProviderThatStaysAwayMovesToItsCursorAndDoesNotHoldTheJournal()
      throws IOException {
    RecordingProvider a = new RecordingProvider("a");
    OutboxEngine first = openOnSmallSegments(a, "away");
    first.erase(OwnerKey.of("user:9"));
    enqueue(first, 150, List.of("a"));
    eventually(() -> assertThat(a.received).hasSize(150));
    awaitOneSegmentLeft(first);
    assertThat(first.stats().get("away").pending()).isEqualTo(1);
    first.close();

    RecordingProvider away = new RecordingProvider("away");
    members.run(away);
    open();
    eventually(() -> assertThat(away.events).containsExactly("forget:user:9"));
  }

  @Test
  void withoutFsyncTurnsAreStillJournaledAndDelivered() {
    settings = OutboxSettingsBuilder.from(settings).fsync(false).build();
    members.stop("a");
    OutboxEngine first = open();
    enqueue(first, 10, List.of("a"));
    first.close();

    RecordingProvider a = new RecordingProvider("a");
    members.run(a);
    open();
    eventually(() -> assertThat(a.storedIds()).containsExactlyElementsOf(ids("t", 10)));
  }

  @Test
  void aSecondOutboxOnTheSameFolderIsRefused() {
    open();
    assertThatThrownBy(this::open)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("in use by another host process");
  }

  @Test
  void turnsWithoutRecipientsWriteNothing() {
    OutboxEngine outbox = open();
    outbox.enqueue(turn("t1"), List.of());
    assertThat(outbox.journalStats().nextPosition()).isZero();
    assertThat(outbox.stats()).isEmpty();
  }

  @Test
  void aClosedOutboxRefusesTurns() {
    OutboxEngine outbox = open();
    outbox.close();
    assertThatThrownBy(() -> outbox.enqueue(turn("t1"), List.of("a")))
        .isInstanceOf(IllegalStateException.class);
  }

  private List<Path> segmentFiles() {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".seg")).sorted().toList();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void theSameTurnIdOfTwoOwnersIsTwoTurnsThroughTheJournalAndARestart() {
    RecordingProvider a = new RecordingProvider("a");
    RecordingProvider b = RecordingProvider.down("b");
    OutboxEngine first = openWith(a, b);

    first.enqueue(turn("same-id", "api:1"), AB);
    first.enqueue(turn("same-id", "api:2"), AB);
    eventually(() -> assertThat(a.stored).hasSize(2));
    assertThat(a.stored).extracting(t -> t.owner().value()).containsExactly("api:1", "api:2");
    first.close();

    // b was down: both turns wait in the journal and both reach it after a restart
    b.failing = false;
    open();
    eventually(() -> assertThat(b.stored).hasSize(2));
    assertThat(b.stored).extracting(t -> t.owner().value()).containsExactly("api:1", "api:2");
    assertThat(b.stored).extracting(t -> t.turnId()).containsOnly("same-id");
  }
}
