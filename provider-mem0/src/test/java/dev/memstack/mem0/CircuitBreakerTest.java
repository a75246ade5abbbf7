package dev.memstack.mem0;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Circuit breaker")
class CircuitBreakerTest {

  private final AtomicLong now = new AtomicLong();
  private final CircuitBreaker breaker = new CircuitBreaker(3, Duration.ofSeconds(10), now::get);

  private void fail() {
    assertThat(breaker.tryAcquire()).isTrue();
    breaker.release(CircuitBreaker.Outcome.FAILURE);
  }

  @Test
  @DisplayName("opens after the threshold of consecutive failures and then refuses calls")
  void opensAfterTheThreshold() {
    fail();
    fail();
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    fail();

    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
    assertThat(breaker.tryAcquire()).isFalse();
    assertThat(breaker.retryIn()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  @DisplayName("a success in between resets the count")
  void aSuccessResetsTheCount() {
    fail();
    fail();
    assertThat(breaker.tryAcquire()).isTrue();
    breaker.release(CircuitBreaker.Outcome.SUCCESS);
    fail();
    fail();

    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
  }

  @Test
  @DisplayName("lets exactly one probe through after the open time; its success closes it")
  void oneProbeAfterTheOpenTime() {
    fail();
    fail();
    fail();
    now.addAndGet(Duration.ofSeconds(10).toNanos());

    assertThat(breaker.tryAcquire()).isTrue();
    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
    assertThat(breaker.tryAcquire()).as("a second caller during the probe").isFalse();
    breaker.release(CircuitBreaker.Outcome.SUCCESS);

    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    assertThat(breaker.tryAcquire()).isTrue();
  }

  @Test
  @DisplayName("a failed probe opens it for another full period")
  void aFailedProbeOpensItAgain() {
    fail();
    fail();
    fail();
    now.addAndGet(Duration.ofSeconds(11).toNanos());
    fail();

    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
    assertThat(breaker.retryIn()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  @DisplayName("an abandoned probe frees the slot for the next caller")
  void anAbandonedProbeFreesTheSlot() {
    fail();
    fail();
    fail();
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    assertThat(breaker.tryAcquire()).isTrue();
    breaker.release(CircuitBreaker.Outcome.IGNORED);

    assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
    assertThat(breaker.tryAcquire()).isTrue();
  }
}
