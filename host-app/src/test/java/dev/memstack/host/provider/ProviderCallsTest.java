package dev.memstack.host.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ProviderCallsTest {

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final ProviderCalls calls = new ProviderCalls(meters);
  private final StackMember member = new TestMembers().add("builtin");

  private double timerCount(String hook, String outcome) {
    var timer =
        meters
            .find(ProviderCalls.TIMER)
            .tag("provider", "builtin")
            .tag("hook", hook)
            .tag("outcome", outcome)
            .timer();
    return timer == null ? 0 : timer.count();
  }

  private double errors(String hook) {
    var counter =
        meters.find(ProviderCalls.ERRORS).tag("provider", "builtin").tag("hook", hook).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void theCallRunsUnderTheMembersClassLoaderWhichIsRestoredAfterwards() {
    ClassLoader before = Thread.currentThread().getContextClassLoader();

    ClassLoader seen =
        calls.call(
            member, ProviderCalls.TOOL, () -> Thread.currentThread().getContextClassLoader());

    assertThat(seen).isSameAs(member.classLoader()).isNotSameAs(before);
    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(before);
    assertThat(timerCount("tool", "ok")).isEqualTo(1);
    assertThat(errors("tool")).isZero();
  }

  @Test
  void aThrowingCallIsRethrownCountedAndStillRestoresTheClassLoader() {
    ClassLoader before = Thread.currentThread().getContextClassLoader();

    assertThatThrownBy(
            () ->
                calls.run(
                    member,
                    ProviderCalls.FORGET,
                    () -> {
                      throw new IllegalStateException("disk full");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("disk full");

    assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(before);
    assertThat(timerCount("forget", "error")).isEqualTo(1);
    assertThat(errors("forget")).isEqualTo(1);
  }

  @Test
  void aCallThatFailsBecauseItWasInterruptedCountsAsTimeout() {
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    try {
      calls.call(
          member,
          ProviderCalls.HEALTH,
          () -> {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("gave up");
          });
    } catch (IllegalStateException e) {
      thrown.set(e);
    } finally {
      Thread.interrupted();
    }

    assertThat(thrown.get()).isNotNull();
    assertThat(timerCount("health", "timeout")).isEqualTo(1);
    assertThat(errors("health")).isEqualTo(1);
  }

  static Stream<Exception> timeoutCauses() {
    return Stream.of(
        new java.net.SocketTimeoutException("read timed out"),
        new java.net.http.HttpTimeoutException("no answer within 1500 ms"));
  }

  @ParameterizedTest(name = "a {0} in the cause chain counts as timeout")
  @MethodSource("timeoutCauses")
  void aTimeoutInTheCauseChainCountsAsTimeout(Exception cause) {
    assertThatThrownBy(
            () ->
                calls.call(
                    member,
                    ProviderCalls.PREFETCH,
                    () -> {
                      throw new IllegalStateException("remote", cause);
                    }))
        .isInstanceOf(IllegalStateException.class);

    assertThat(timerCount("prefetch", "timeout")).isEqualTo(1);
  }
}
