package dev.memstack.mem0;

import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Stops calling a server that keeps failing. After {@code failureThreshold} consecutive server
 * faults the breaker opens and calls fail fast; after {@code openDuration} one probe call is let
 * through (half-open): its success closes the breaker, its failure opens it again. Thread-safe.
 */
final class CircuitBreaker {

  /** The breaker's state. */
  enum State {
    CLOSED,
    OPEN,
    HALF_OPEN;

    String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** How a permitted call ended, as far as the breaker is concerned. */
  enum Outcome {
    /** The server answered (a 2xx, or a 4xx that only concerns this request). */
    SUCCESS,
    /** A server fault: no connection, a timeout, a 5xx, a broken answer, 401/403, 429. */
    FAILURE,
    /** The call was abandoned by the caller (interrupted); says nothing about the server. */
    IGNORED
  }

  private final int failureThreshold;
  private final long openNanos;
  private final LongSupplier nanoTime;

  private State state = State.CLOSED;
  private int consecutiveFailures;
  private long openedAt;
  private boolean probeInFlight;

  CircuitBreaker(int failureThreshold, Duration openDuration, LongSupplier nanoTime) {
    if (failureThreshold < 1) {
      throw new IllegalArgumentException("failureThreshold must be at least 1");
    }
    this.failureThreshold = failureThreshold;
    this.openNanos = openDuration.toNanos();
    this.nanoTime = nanoTime;
  }

  /**
   * Asks to make a call. {@code true} means go ahead and report the outcome with {@link
   * #release(Outcome)}; {@code false} means the breaker is open (or a probe is already running).
   */
  synchronized boolean tryAcquire() {
    switch (state) {
      case CLOSED:
        return true;
      case OPEN:
        if (nanoTime.getAsLong() - openedAt >= openNanos) {
          state = State.HALF_OPEN;
          probeInFlight = true;
          return true;
        }
        return false;
      case HALF_OPEN:
      default:
        if (probeInFlight) {
          return false;
        }
        probeInFlight = true;
        return true;
    }
  }

  /** Reports how a call permitted by {@link #tryAcquire()} ended. */
  synchronized State release(Outcome outcome) {
    State before = state;
    switch (outcome) {
      case SUCCESS:
        state = State.CLOSED;
        consecutiveFailures = 0;
        probeInFlight = false;
        break;
      case FAILURE:
        probeInFlight = false;
        if (state == State.HALF_OPEN) {
          open();
        } else if (state == State.CLOSED && ++consecutiveFailures >= failureThreshold) {
          open();
        }
        break;
      case IGNORED:
      default:
        if (state == State.HALF_OPEN) {
          probeInFlight = false;
        }
        break;
    }
    return before;
  }

  synchronized State state() {
    return state;
  }

  /** How long until the next probe may run; zero when the breaker is not open. */
  synchronized Duration retryIn() {
    if (state != State.OPEN) {
      return Duration.ZERO;
    }
    long left = openNanos - (nanoTime.getAsLong() - openedAt);
    return Duration.ofNanos(Math.max(0, left));
  }

  private void open() {
    state = State.OPEN;
    openedAt = nanoTime.getAsLong();
    consecutiveFailures = 0;
  }
}
