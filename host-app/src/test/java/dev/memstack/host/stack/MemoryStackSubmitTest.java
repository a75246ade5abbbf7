package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.host.outbox.StackDeliveryPort;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.testing.Eventually;
import dev.memstack.host.testing.TestMembers;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.outbox.OutboxStats;
import dev.memstack.outbox.TurnOutboxFullException;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

class MemoryStackSubmitTest {

  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey OWNER = OwnerKey.of("user:1");
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  @AutoClose private final StackHarness harness = new StackHarness();
  private final TestMembers members = harness.members;
  private final CountDownLatch releaseHung = harness.releaseHung;
  private final SimpleMeterRegistry meters = harness.meters;
  private final ProviderCalls calls = harness.calls;
  private final MutableClock clock = MutableClock.at(Instant.parse("2026-03-02T10:00:00Z"));
  private MemoryStack stack;

  private MemoryStack stack(int capacity) {
    OutboxSettings settings =
        OutboxSettingsBuilder.defaults()
            .maxPending(capacity)
            .initialBackoff(Duration.ofMillis(50))
            .maxBackoff(Duration.ofMillis(200))
            .shutdownGrace(Duration.ZERO)
            .build();
    stack = harness.start(StackProperties.defaults(), settings, new SystemPromptCache(), clock);
    return stack;
  }

  private static TurnRequest turn(String turnId, String userMessage) {
    return new TurnRequest(AGENT, OWNER, "c1", turnId, userMessage, "ok", TriggerSource.WEB, null);
  }

  /**
   * A stack of {@code capacity} turns per provider with a hung provider ({@code hung}) beside a
   * healthy one: hands in {@code turns} turns and waits until the healthy one has them all.
   */
  private void submitToAHungAndAHealthyProvider(int capacity, int turns) {
    members.add(new FakeProvider("hung").hangsSyncs(releaseHung));
    FakeProvider healthy = new FakeProvider("healthy");
    members.add(healthy);
    stack(capacity);
    for (int i = 0; i < turns; i++) {
      stack.submit(turn("t" + i, "m" + i));
    }
    Eventually.within(PATIENCE, () -> assertThat(healthy.synced).hasSize(turns));
  }

  @Test
  void turnsReachEveryProviderInTheOrderTheyWereAccepted() {
    FakeProvider a = new FakeProvider("a");
    FakeProvider b = new FakeProvider("b");
    AtomicInteger n = new AtomicInteger();
    b.sync = turn -> FakeProvider.sleep(n.incrementAndGet() % 3);
    members.add(a);
    members.add(b);
    stack(1_000);

    List<String> ids = new java.util.ArrayList<>();
    for (int i = 0; i < 50; i++) {
      ids.add(stack.submit(turn("t" + i, "message " + i)));
    }

    Eventually.within(
        PATIENCE,
        () -> {
          assertThat(a.synced).extracting(Turn::turnId).containsExactlyElementsOf(ids);
          assertThat(b.synced).extracting(Turn::turnId).containsExactlyElementsOf(ids);
        });
  }

  @Test
  void aFailingProviderIsRetriedWithoutHoldingUpTheOthers() {
    FakeProvider healthy = new FakeProvider("healthy");
    FakeProvider flaky = new FakeProvider("flaky");
    AtomicInteger failuresLeft = new AtomicInteger(4);
    flaky.sync =
        turn -> {
          if (failuresLeft.getAndDecrement() > 0) {
            throw new IllegalStateException("database unavailable");
          }
        };
    members.add(flaky);
    members.add(healthy);
    stack(1_000);

    stack.submit(turn("t1", "one"));
    stack.submit(turn("t2", "two"));
    stack.submit(turn("t3", "three"));

    Eventually.within(
        Duration.ofMillis(2_000),
        () ->
            assertThat(healthy.synced).extracting(Turn::turnId).containsExactly("t1", "t2", "t3"));
    Eventually.within(
        PATIENCE,
        () -> assertThat(flaky.synced).extracting(Turn::turnId).containsExactly("t1", "t2", "t3"));
    OutboxStats stats = stack.outboxStats().get("flaky");
    assertThat(stats.failedAttempts()).isEqualTo(4);
    assertThat(stats.lastError()).contains("database unavailable");
    assertThat(stats.delivered()).isEqualTo(3);
    assertThat(stats.pending()).isZero();
    assertThat(
            meters
                .get(ProviderCalls.TIMER)
                .tag("provider", "flaky")
                .tag("hook", "syncTurn")
                .tag("outcome", "error")
                .timer()
                .count())
        .isEqualTo(4);
  }

  @Test
  void aHungProviderHoldsUpOnlyItsOwnQueue() {
    submitToAHungAndAHealthyProvider(1_000, 5);

    assertThat(stack.outboxStats().get("hung").pending()).isEqualTo(5);
  }

  @Test
  void aFullQueueRefusesTheTurnForEveryProviderAndNamesTheProvider() {
    submitToAHungAndAHealthyProvider(3, 3);

    assertThatThrownBy(() -> stack.submit(turn("t3", "one too many")))
        .isInstanceOf(TurnOutboxFullException.class)
        .hasMessageContaining("hung")
        .satisfies(e -> assertThat(((TurnOutboxFullException) e).providerId()).isEqualTo("hung"));
    assertThat(stack.outboxStats().get("healthy").pending()).isZero();
    assertThat(stack.outboxStats().get("healthy").delivered()).isEqualTo(3);
  }

  @Test
  void queuedTurnsReachTheReloadedInstanceOfAProvider() {
    FakeProvider before = new FakeProvider("vector").failsSyncs("provider vector is closed");
    members.add(before);
    stack(1_000);

    stack.submit(turn("t1", "during the reload"));
    Eventually.within(
        PATIENCE,
        () -> assertThat(stack.outboxStats().get("vector").lastError()).contains("closed"));
    members.remove("vector");
    FakeProvider after = new FakeProvider("vector");
    members.add(after);

    Eventually.within(
        PATIENCE, () -> assertThat(after.synced).extracting(Turn::turnId).containsExactly("t1"));
    assertThat(before.synced).isEmpty();
  }

  @Test
  void turnsWaitWhileNoInstanceOfTheProviderIsRunning() {
    members.add(new FakeProvider("vector").failsSyncs("stopping"));
    stack(1_000);
    stack.submit(turn("t1", "queued"));
    members.remove("vector");

    Eventually.within(
        PATIENCE,
        () -> assertThat(stack.outboxStats().get("vector").lastError()).contains("not running"));
    assertThat(stack.outboxStats().get("vector").pending()).isEqualTo(1);
    FakeProvider restarted = new FakeProvider("vector");
    members.add(restarted);

    Eventually.within(PATIENCE, () -> assertThat(restarted.synced).hasSize(1));
  }

  @Test
  void statsShowThePendingTurnsAndTheAgeOfTheOldest() {
    members.add(new FakeProvider("hung").hangsSyncs(releaseHung));
    stack(1_000);

    stack.submit(turn("t1", "first"));
    clock.advance(Duration.ofSeconds(5));
    stack.submit(turn("t2", "second"));
    clock.advance(Duration.ofSeconds(7));

    OutboxStats stats = stack.outboxStats().get("hung");
    assertThat(stats.pending()).isEqualTo(2);
    assertThat(stats.oldestAge()).isEqualTo(Duration.ofSeconds(12));
    assertThat(stats.delivered()).isZero();
  }

  @Test
  void closingTheOutboxDeliversWhatIsQueuedWithinTheGraceAndThenRefusesTurns() {
    FakeProvider slow = new FakeProvider("slow");
    slow.sync = turn -> FakeProvider.sleep(100);
    members.add(slow);
    OutboxEngine graceful =
        OutboxEngine.inMemory(
            OutboxSettingsBuilder.defaults()
                .maxPending(100)
                .initialBackoff(Duration.ofMillis(50))
                .maxBackoff(Duration.ofMillis(200))
                .shutdownGrace(Duration.ofSeconds(10))
                .build(),
            new StackDeliveryPort(members, calls));
    for (int i = 0; i < 5; i++) {
      graceful.enqueue(
          new Turn("t" + i, AGENT, OWNER, "c1", "m" + i, "ok", TriggerSource.API, Instant.now()),
          List.of("slow"));
    }

    graceful.close();

    assertThat(slow.synced).extracting(Turn::turnId).containsExactly("t0", "t1", "t2", "t3", "t4");
    assertThatThrownBy(
            () ->
                graceful.enqueue(
                    new Turn(
                        "late", AGENT, OWNER, "c1", "m", "ok", TriggerSource.API, Instant.now()),
                    List.of("slow")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void aMemoryContextBlockInTheUserMessageNeverReachesAProvider() {
    FakeProvider vector = new FakeProvider("vector");
    members.add(vector);
    stack(1_000);

    stack.submit(
        turn(
            "t1",
            "<memory-context>\n"
                + MemoryContextFence.HEADER
                + "\n- [2026-03-01] (vector, personal) The user's cat is called Tom\n"
                + "</memory-context>\n\nWhat is my cat called?"));

    Eventually.within(PATIENCE, () -> assertThat(vector.synced).hasSize(1));
    Turn stored = vector.synced.get(0);
    assertThat(stored.userMessage()).isEqualTo("What is my cat called?");
    assertThat(stored.assistantReply()).isEqualTo("ok");
  }

  @Test
  void aTurnWithoutIdGetsAUuidAndTheTimeOfSubmission() {
    FakeProvider vector = new FakeProvider("vector");
    StackMember member = members.add(vector);
    stack(1_000);

    String turnId = stack.submit(turn(null, "hello"));

    assertThat(UUID.fromString(turnId)).isNotNull();
    Eventually.within(PATIENCE, () -> assertThat(vector.synced).hasSize(1));
    Turn stored = vector.synced.get(0);
    assertThat(stored.turnId()).isEqualTo(turnId);
    assertThat(stored.time()).isEqualTo(clock.instant());
    assertThat(stored.owner()).isEqualTo(OWNER);
    assertThat(stored.triggerSource()).isEqualTo(TriggerSource.WEB);
    assertThat(vector.loadersSeen).containsOnly(member.classLoader());
  }

  @Test
  void aGivenTurnIdIsKeptAndAnInvalidTurnIsRefusedAtOnce() {
    members.add(new FakeProvider("vector"));
    stack(1_000);

    assertThat(stack.submit(turn("turn-42", "hello"))).isEqualTo("turn-42");
    assertThatThrownBy(() -> stack.submit(turn("a/b", "hello")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("turnId");
    assertThatThrownBy(
            () ->
                stack.submit(
                    new TurnRequest(
                        AGENT,
                        OWNER,
                        "c1",
                        null,
                        "<memory-context>only recalled memory</memory-context>",
                        "",
                        TriggerSource.API,
                        null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("both empty");
  }

  @Test
  void anAcceptedTurnIsRecordedOnceInTheConversationLogWithoutItsFencedBlock() {
    FakeProvider vector = new FakeProvider("vector");
    members.add(vector);
    stack(1_000);

    String turnId =
        stack.submit(turn("t-log", "<memory-context>recalled</memory-context>I like tea"));

    Eventually.within(PATIENCE, () -> assertThat(vector.synced).hasSize(1));
    assertThat(harness.conversations.appended).containsExactly(vector.synced.get(0));
    Turn logged = harness.conversations.appended.get(0);
    assertThat(logged.turnId()).isEqualTo(turnId);
    assertThat(logged.userMessage()).isEqualTo("I like tea");
  }

  @Test
  void aConversationLogThatFailsDoesNotFailTheTurn() {
    FakeProvider vector = new FakeProvider("vector");
    members.add(vector);
    stack(1_000);
    harness.conversations.failing = true;

    assertThat(stack.submit(turn("t-down", "hello"))).isEqualTo("t-down");
    Eventually.within(PATIENCE, () -> assertThat(vector.synced).hasSize(1));
  }

  @Test
  void anInvalidRequestNamesItsField() {
    assertThatThrownBy(() -> turn("t1", "x".repeat(Turn.MAX_MESSAGE_LENGTH + 1)))
        .isInstanceOf(InvalidRequestException.class)
        .extracting(e -> ((InvalidRequestException) e).field())
        .isEqualTo("userMessage");
    assertThatThrownBy(() -> turn("a/b", "hello"))
        .extracting(e -> ((InvalidRequestException) e).field())
        .isEqualTo("turnId");
    assertThatThrownBy(
            () -> new TurnRequest(AGENT, null, "c1", null, "hi", "ok", TriggerSource.API, null))
        .extracting(e -> ((InvalidRequestException) e).field())
        .isEqualTo("ownerKey");
  }
}
