package dev.memstack.host.provider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.support.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The breaker's verdict on each way a request-path call ends. */
class RequestCallsTest {

  private final TestMembers members = new TestMembers();
  private final StackMember member = members.add("p");
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger bodies = new AtomicInteger();
  private Breakers breakers;
  private RequestCalls calls;

  @AfterEach
  void tearDown() {
    release.countDown();
    if (calls != null) {
      calls.close();
    }
  }

  private RequestCalls calls(int failureThreshold, int maxLateCalls) {
    breakers = new Breakers(failureThreshold, Duration.ofMinutes(5));
    calls =
        new RequestCalls(
            new ProviderCalls(new SimpleMeterRegistry()), members, breakers, maxLateCalls, 8);
    return calls;
  }

  private <T> CallOutcome<T> call(Supplier<T> body, Duration wait) {
    return calls
        .start(
            member,
            ProviderCalls.PREFETCH,
            () -> {
              bodies.incrementAndGet();
              return body.get();
            })
        .await(System.nanoTime() + wait.toNanos());
  }

  private <T> CallOutcome<T> call(Supplier<T> body) {
    return call(body, Duration.ofSeconds(5));
  }

  /** A call of {@code hook} on {@code target} that fails ("down"), awaited. */
  private CallOutcome<Object> failedCall(StackMember target, String hook) {
    return calls
        .start(target, hook, down())
        .await(System.nanoTime() + Duration.ofSeconds(5).toNanos());
  }

  /** A call body that throws what {@code failure} makes. */
  private static <T> Supplier<T> throwing(Supplier<RuntimeException> failure) {
    return () -> {
      throw failure.get();
    };
  }

  /** A call body that fails: "down". */
  private static <T> Supplier<T> down() {
    return throwing(() -> new IllegalStateException("down"));
  }

  private CircuitBreaker.State state() {
    return breakers.of(member, ProviderCalls.PREFETCH).state();
  }

  private String hang() {
    try {
      release.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "late";
  }

  @Test
  void anErrorIsAFailureAndAnOpenBreakerRefusesWithoutCalling() {
    calls(1, 4);

    CallOutcome<Object> failed = call(down());

    assertThat(failed.status()).isEqualTo(CallOutcome.Status.ERROR);
    assertThat(failed.detail()).isEqualTo("IllegalStateException: down");
    assertThat(state()).isEqualTo(CircuitBreaker.State.OPEN);
    CallOutcome<String> refused = call(() -> "never");
    assertThat(refused.status()).isEqualTo(CallOutcome.Status.OPEN);
    assertThat(refused.detail()).isEqualTo("circuit breaker open");
    assertThat(refused.tookNanos()).isZero();
    assertThat(bodies).hasValue(1);
  }

  @Test
  void aProviderThatDeclinesBecauseItsDependencyIsDownIsNoVerdict() {
    calls(1, 4);
    Supplier<String> declining =
        throwing(
            () -> new ProviderUnavailableException("mem0 server: circuit open, retry in 30 s"));

    for (int i = 0; i < 5; i++) {
      CallOutcome<String> outcome = call(declining);
      assertThat(outcome.status()).isEqualTo(CallOutcome.Status.UNAVAILABLE);
      assertThat(outcome.detail()).contains("circuit open");
    }

    assertThat(state()).isEqualTo(CircuitBreaker.State.CLOSED);
    assertThat(bodies).hasValue(5); // still called: it answers again once its dependency does
    assertThat(call(() -> "back").ok()).isTrue();
  }

  @Test
  void aNullAnswerIsAFailure() {
    calls(1, 4);

    CallOutcome<String> outcome = call(() -> null);

    assertThat(outcome.status()).isEqualTo(CallOutcome.Status.ERROR);
    assertThat(outcome.detail()).isEqualTo("the provider returned null");
    assertThat(state()).isEqualTo(CircuitBreaker.State.OPEN);
  }

  @Test
  void aTimeoutIsAFailure() {
    calls(1, 4);

    CallOutcome<String> outcome = call(this::hang, Duration.ofMillis(50));

    assertThat(outcome.status()).isEqualTo(CallOutcome.Status.TIMEOUT);
    assertThat(state()).isEqualTo(CircuitBreaker.State.OPEN);
  }

  @Test
  void anAnswerIsASuccessThatEndsTheRunOfFailures() {
    calls(2, 4);
    Supplier<String> failing = down();

    call(failing);
    assertThat(call(() -> "ok").ok()).isTrue();
    call(failing);

    assertThat(state()).isEqualTo(CircuitBreaker.State.CLOSED);
    call(failing);
    assertThat(state()).isEqualTo(CircuitBreaker.State.OPEN);
  }

  @Test
  void aCallRefusedAsBusyIsNoVerdict() {
    calls(2, 1);
    assertThat(call(this::hang, Duration.ofMillis(50)).status())
        .isEqualTo(CallOutcome.Status.TIMEOUT);

    CallOutcome<String> busy = call(() -> "never");

    assertThat(busy.status()).isEqualTo(CallOutcome.Status.BUSY);
    assertThat(busy.detail()).startsWith("busy: 1 earlier calls");
    assertThat(state())
        .as("one failure, the busy call not counted")
        .isEqualTo(CircuitBreaker.State.CLOSED);
    assertThat(bodies).hasValue(1);
  }

  @Test
  void aCallWithoutBreakerNeverOpensOne() {
    calls(1, 4);

    for (int i = 0; i < 3; i++) {
      CallOutcome<Integer> outcome =
          calls
              .<Integer>startWithoutBreaker(member, ProviderCalls.FEEDBACK, down())
              .await(System.nanoTime() + Duration.ofSeconds(5).toNanos());
      assertThat(outcome.status()).isEqualTo(CallOutcome.Status.ERROR);
    }

    assertThat(breakers.of(member, ProviderCalls.FEEDBACK).state())
        .isEqualTo(CircuitBreaker.State.CLOSED);
  }

  @Test
  void theReportedStateIsTheWorstOfTheRecallAndSystemPromptBreakers() {
    calls(1, 4);
    StackMember other = members.add("q");
    failedCall(other, ProviderCalls.SYSTEM_PROMPT_BLOCK);
    failedCall(member, ProviderCalls.OWNER_PROMPT_BLOCK);

    assertThat(calls.breakerStates()).containsEntry("q", "open").containsEntry("p", "closed");
  }

  @Test
  void aReloadedProviderStartsWithClosedBreakers() {
    calls(1, 4);
    call(down());
    assertThat(state()).isEqualTo(CircuitBreaker.State.OPEN);

    StackMember reloaded =
        new StackMember(
            member.id(),
            member.type(),
            member.pluginId(),
            member.order(),
            new TestMembers().add(member.id()).provider(),
            member.classLoader());

    assertThat(breakers.of(reloaded, ProviderCalls.PREFETCH).state())
        .isEqualTo(CircuitBreaker.State.CLOSED);
  }
}
