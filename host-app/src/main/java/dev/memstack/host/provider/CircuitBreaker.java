package dev.memstack.host.provider;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A small circuit breaker for one provider: closed until {@code failureThreshold} calls in a row
 * fail or time out, then open (no calls) for {@code openDuration}, then half open: one trial call
 * is let through, and its result closes or re-opens the breaker. Thread-safe.
 */
public final class CircuitBreaker {

  public enum State {
    CLOSED,
    OPEN,
    HALF_OPEN;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private final int failureThreshold;
  private final long openNanos;
  private final LongSupplier nanoTime;
  private State state = State.CLOSED;
  private int failuresInARow;
  private long openedAt;
  private boolean trialRunning;

  public CircuitBreaker(int failureThreshold, Duration openDuration, LongSupplier nanoTime) {
    if (failureThreshold < 1) {
      throw new IllegalArgumentException("failureThreshold must be at least 1");
    }
    this.failureThreshold = failureThreshold;
    this.openNanos = openDuration.toNanos();
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /** Whether a call may go ahead now; a {@code true} must be followed by one verdict method. */
  public synchronized boolean tryAcquire() {
    switch (state) {
      case CLOSED:
        return true;
      case OPEN:
        if (nanoTime.getAsLong() - openedAt < openNanos) {
          return false;
        }
        state = State.HALF_OPEN;
        trialRunning = true;
        return true;
      default:
        if (trialRunning) {
          return false;
        }
        trialRunning = true;
        return true;
    }
  }

  public synchronized void onSuccess() {
    state = State.CLOSED;
    failuresInARow = 0;
    trialRunning = false;
  }

  public synchronized void onFailure() {
    failuresInARow++;
    if (state == State.HALF_OPEN || failuresInARow >= failureThreshold) {
      state = State.OPEN;
      openedAt = nanoTime.getAsLong();
    }
    trialRunning = false;
  }

  /** The acquired call did not take place (e.g. the provider was busy): no verdict. */
  public synchronized void onNotCalled() {
    trialRunning = false;
  }

  /** The current state; an open breaker whose wait is over reports {@code HALF_OPEN}. */
  public synchronized State state() {
    if (state == State.OPEN && nanoTime.getAsLong() - openedAt >= openNanos) {
      return State.HALF_OPEN;
    }
    return state;
  }
}
