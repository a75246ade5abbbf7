package dev.memstack.host.provider;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

  private final AtomicLong now = new AtomicLong();
  private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(10), now::get);

  private void fail(int times) {
    for (int i = 0; i < times; i++) {
      assertThat(breaker.tryAcquire()).isTrue();
      breaker.onFailure();
    }
  }

  @Test
  void itOpensOnlyAfterTheThresholdOfFailuresInARow() {
    fail(2);
    assertThat(breaker.tryAcquire()).isTrue();
    breaker.onSuccess();
    fail(2);
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);

    fail(1);

    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
    assertThat(breaker.tryAcquire()).isFalse();
  }

  @Test
  void afterTheOpenDurationExactlyOneTrialIsLetThrough() {
    fail(3);
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    assertThat(breaker.tryAcquire()).isFalse();
    now.addAndGet(Duration.ofSeconds(1).toNanos());

    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
    assertThat(breaker.tryAcquire()).isTrue();
    assertThat(breaker.tryAcquire()).isFalse();
    breaker.onSuccess();

    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    assertThat(breaker.tryAcquire()).isTrue();
  }

  @Test
  void aFailedTrialOpensItForAnotherFullDuration() {
    fail(3);
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    assertThat(breaker.tryAcquire()).isTrue();
    breaker.onFailure();

    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
    now.addAndGet(Duration.ofSeconds(5).toNanos());
    assertThat(breaker.tryAcquire()).isFalse();
  }

  @Test
  void aTrialThatWasNotCalledLetsTheNextOneThrough() {
    fail(3);
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    assertThat(breaker.tryAcquire()).isTrue();
    breaker.onNotCalled();

    assertThat(breaker.tryAcquire()).isTrue();
  }
}
