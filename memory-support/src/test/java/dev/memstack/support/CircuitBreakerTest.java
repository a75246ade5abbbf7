package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.support.CircuitBreaker.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("Circuit breaker")
class CircuitBreakerTest {

  private static final Duration OPEN = Duration.ofSeconds(10);

  private final AtomicLong now = new AtomicLong();
  private CircuitBreaker breaker = new CircuitBreaker(3, OPEN, now::get);

  private void fail(int times) {
    for (int i = 0; i < times; i++) {
      assertThat(breaker.tryAcquire()).isTrue();
      breaker.onFailure();
    }
  }

  private void succeed() {
    assertThat(breaker.tryAcquire()).isTrue();
    breaker.onSuccess();
  }

  private void advance(Duration duration) {
    now.addAndGet(duration.toNanos());
  }

  /** Opens the breaker and waits until its trial may run. */
  private void openAndWait() {
    fail(3);
    advance(OPEN);
  }

  @Nested
  @DisplayName("closed")
  class Closed {

    @Test
    @DisplayName("lets every call through and reports closed")
    void letsEveryCallThrough() {
      for (int i = 0; i < 10; i++) {
        succeed();
      }

      assertThat(breaker.state()).isEqualTo(State.CLOSED);
      assertThat(breaker.retryIn()).isEqualTo(Duration.ZERO);
    }

    @Test
    @DisplayName("opens at the threshold of failures in a row, not before")
    void opensAtTheThreshold() {
      fail(2);
      assertThat(breaker.state()).isEqualTo(State.CLOSED);
      assertThat(breaker.tryAcquire()).isTrue();

      assertThat(breaker.onFailure()).as("the opening failure says so").isTrue();

      assertThat(breaker.state()).isEqualTo(State.OPEN);
      assertThat(breaker.tryAcquire()).isFalse();
      assertThat(breaker.retryIn()).isEqualTo(OPEN);
    }

    @Test
    @DisplayName("a success in between starts the count again")
    void aSuccessResetsTheCount() {
      fail(2);
      succeed();
      fail(2);

      assertThat(breaker.state()).isEqualTo(State.CLOSED);
      fail(1);
      assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    @DisplayName("a call that did not happen neither counts nor resets the count")
    void aCallNotMadeIsNoVerdict() {
      fail(2);
      assertThat(breaker.tryAcquire()).isTrue();
      breaker.onNotCalled();
      assertThat(breaker.state()).isEqualTo(State.CLOSED);

      fail(1);

      assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    @DisplayName("a threshold of one opens on the first failure")
    void aThresholdOfOne() {
      breaker = new CircuitBreaker(1, OPEN, now::get);

      fail(1);

      assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    @DisplayName("only the opening failure and the closing success report a change")
    void verdictsReportChanges() {
      assertThat(breaker.tryAcquire()).isTrue();
      assertThat(breaker.onFailure()).isFalse();
      assertThat(breaker.tryAcquire()).isTrue();
      assertThat(breaker.onSuccess()).as("already closed").isFalse();
      fail(2);
      assertThat(breaker.tryAcquire()).isTrue();
      assertThat(breaker.onFailure()).isTrue();

      advance(OPEN);
      assertThat(breaker.tryAcquire()).isTrue();
      assertThat(breaker.onSuccess()).as("the trial closed it").isTrue();
    }
  }

  @Nested
  @DisplayName("open")
  class Open {

    @Test
    @DisplayName("refuses calls until the open duration is over, counting down retryIn")
    void refusesUntilTheWaitIsOver() {
      fail(3);
      advance(Duration.ofSeconds(4));

      assertThat(breaker.tryAcquire()).isFalse();
      assertThat(breaker.state()).isEqualTo(State.OPEN);
      assertThat(breaker.retryIn()).isEqualTo(Duration.ofSeconds(6));

      advance(Duration.ofSeconds(6).minusNanos(1));
      assertThat(breaker.tryAcquire()).isFalse();
      assertThat(breaker.retryIn()).isEqualTo(Duration.ofNanos(1));
    }

    @Test
    @DisplayName("reports half open once the wait is over, before any trial")
    void reportsHalfOpenOnceTheWaitIsOver() {
      openAndWait();

      assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
      assertThat(breaker.retryIn()).isEqualTo(Duration.ZERO);
      assertThat(breaker.state()).as("asking does not take the trial").isEqualTo(State.HALF_OPEN);
      assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    @DisplayName("a late failure of a call let through earlier does not make the wait longer")
    void aLateFailureDoesNotExtendTheWait() {
      assertThat(breaker.tryAcquire()).isTrue();
      fail(3);
      advance(Duration.ofSeconds(5));

      assertThat(breaker.onFailure()).isFalse();

      assertThat(breaker.retryIn()).isEqualTo(Duration.ofSeconds(5));
      advance(Duration.ofSeconds(5));
      assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    @DisplayName("a late success of a call let through earlier closes it: the dependency answered")
    void aLateSuccessClosesIt() {
      assertThat(breaker.tryAcquire()).isTrue();
      fail(3);

      assertThat(breaker.onSuccess()).isTrue();

      assertThat(breaker.state()).isEqualTo(State.CLOSED);
      assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    @DisplayName("a late call that did not happen changes nothing")
    void aLateNotCalledChangesNothing() {
      assertThat(breaker.tryAcquire()).isTrue();
      fail(3);

      breaker.onNotCalled();

      assertThat(breaker.state()).isEqualTo(State.OPEN);
      assertThat(breaker.tryAcquire()).isFalse();
    }

    @Test
    @DisplayName("an open duration of zero lets the trial through at once")
    void aZeroOpenDuration() {
      breaker = new CircuitBreaker(1, Duration.ZERO, now::get);
      fail(1);

      assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
      assertThat(breaker.tryAcquire()).isTrue();
      assertThat(breaker.tryAcquire()).isFalse();
    }

    @Test
    @DisplayName("works with a clock of any origin, also across the wrap of a long")
    void worksAcrossTheClocksWrap() {
      now.set(Long.MAX_VALUE - Duration.ofSeconds(3).toNanos());
      fail(3);

      advance(Duration.ofSeconds(9));
      assertThat(now.get()).as("the clock wrapped").isNegative();
      assertThat(breaker.tryAcquire()).isFalse();
      assertThat(breaker.retryIn()).isEqualTo(Duration.ofSeconds(1));

      advance(Duration.ofSeconds(1));
      assertThat(breaker.tryAcquire()).isTrue();
    }
  }

  @Nested
  @DisplayName("half open")
  class HalfOpen {

    @Test
    @DisplayName("lets exactly one trial through; its success closes the breaker")
    void exactlyOneTrial() {
      openAndWait();

      assertThat(breaker.tryAcquire()).isTrue();
      assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
      assertThat(breaker.tryAcquire()).as("a second caller during the trial").isFalse();
      assertThat(breaker.tryAcquire()).as("and a third").isFalse();
      breaker.onSuccess();

      assertThat(breaker.state()).isEqualTo(State.CLOSED);
      assertThat(breaker.tryAcquire()).isTrue();
      assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    @DisplayName("after a good trial it takes the full threshold again to open")
    void aGoodTrialStartsTheCountAfresh() {
      openAndWait();
      succeed();

      fail(2);

      assertThat(breaker.state()).isEqualTo(State.CLOSED);
      fail(1);
      assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    @DisplayName("a failed trial opens it again for another full duration")
    void aFailedTrialReopens() {
      openAndWait();
      assertThat(breaker.tryAcquire()).isTrue();

      assertThat(breaker.onFailure()).isTrue();

      assertThat(breaker.state()).isEqualTo(State.OPEN);
      assertThat(breaker.retryIn()).isEqualTo(OPEN);
      advance(OPEN.minusNanos(1));
      assertThat(breaker.tryAcquire()).isFalse();
      advance(Duration.ofNanos(1));
      assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
      assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    @DisplayName("a trial that did not happen frees the slot for the next caller")
    void aTrialNotCalledFreesTheSlot() {
      openAndWait();
      assertThat(breaker.tryAcquire()).isTrue();

      breaker.onNotCalled();

      assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
      assertThat(breaker.tryAcquire()).isTrue();
      assertThat(breaker.tryAcquire()).isFalse();
      breaker.onSuccess();
      assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    @DisplayName("a trial that did not happen does not start a new wait")
    void aTrialNotCalledKeepsItHalfOpen() {
      openAndWait();
      assertThat(breaker.tryAcquire()).isTrue();
      breaker.onNotCalled();

      assertThat(breaker.retryIn()).isEqualTo(Duration.ZERO);
      assertThat(breaker.tryAcquire()).isTrue();
      breaker.onFailure();
      assertThat(breaker.state()).isEqualTo(State.OPEN);
    }

    @Test
    @DisplayName("callers racing for the trial get one between them")
    void racingCallersGetOneTrial() throws Exception {
      openAndWait();
      int callers = 8;
      ExecutorService pool = Executors.newFixedThreadPool(callers);
      try {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> answers = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
          Callable<Boolean> call =
              () -> {
                start.await();
                return breaker.tryAcquire();
              };
          answers.add(pool.submit(call));
        }
        start.countDown();
        int granted = 0;
        for (Future<Boolean> answer : answers) {
          granted += answer.get(10, TimeUnit.SECONDS) ? 1 : 0;
        }

        assertThat(granted).isEqualTo(1);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Nested
  @DisplayName("construction")
  class Construction {

    @Test
    @DisplayName("refuses a threshold below one, a negative duration and missing arguments")
    void refusesBadArguments() {
      assertThatThrownBy(() -> new CircuitBreaker(0, OPEN, now::get))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("failureThreshold");
      assertThatThrownBy(() -> new CircuitBreaker(1, Duration.ofMillis(-1), now::get))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("openDuration");
      assertThatThrownBy(() -> new CircuitBreaker(1, null, now::get))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("openDuration");
      assertThatThrownBy(() -> new CircuitBreaker(1, OPEN, null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("nanoTime");
    }

    @Test
    @DisplayName("the system-clock breaker starts closed")
    void theSystemClockBreakerStartsClosed() {
      CircuitBreaker onSystemTime = new CircuitBreaker(2, Duration.ofMinutes(1));

      assertThat(onSystemTime.state()).isEqualTo(State.CLOSED);
      assertThat(onSystemTime.tryAcquire()).isTrue();
      onSystemTime.onFailure();
      assertThat(onSystemTime.tryAcquire()).isTrue();
      onSystemTime.onFailure();
      assertThat(onSystemTime.state()).isEqualTo(State.OPEN);
      assertThat(onSystemTime.retryIn()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
    }

    @Test
    @DisplayName("states have lower-case wire names")
    void wireNames() {
      assertThat(State.CLOSED.wireName()).isEqualTo("closed");
      assertThat(State.OPEN.wireName()).isEqualTo("open");
      assertThat(State.HALF_OPEN.wireName()).isEqualTo("half_open");
    }
  }
}
