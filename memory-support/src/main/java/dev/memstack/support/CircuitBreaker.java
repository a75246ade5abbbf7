package dev.memstack.support;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A circuit breaker for the calls to one dependency: it stops calling something that keeps failing
 * and tries it again, once, after a while.
 *
 * <ul>
 *   <li>{@link State#CLOSED CLOSED}: every call goes ahead. {@code failureThreshold} failures in a
 *       row (no success in between) open the breaker.
 *   <li>{@link State#OPEN OPEN}: {@link #tryAcquire()} refuses every call for {@code openDuration},
 *       counted from the failure that opened it.
 *   <li>{@link State#HALF_OPEN HALF_OPEN}: the wait is over. The next {@link #tryAcquire()} lets
 *       one trial call through and refuses the others until the trial's verdict: {@link
 *       #onSuccess()} closes the breaker, {@link #onFailure()} opens it for another full {@code
 *       openDuration}, {@link #onNotCalled()} frees the trial for the next caller.
 * </ul>
 *
 * <p>Every {@code tryAcquire()} that returned {@code true} is followed by exactly one verdict. What
 * counts as a failure is the caller's choice: typically a timeout or a fault of the dependency, not
 * a request it refused for its own content. Verdicts are not matched to their acquire, so the
 * verdict of a call let through before the breaker opened still counts: its success closes the
 * breaker (the dependency answered), its failure changes nothing while the breaker is open (the
 * wait is not made longer).
 *
 * <p>{@link #state()} reports {@code HALF_OPEN} as soon as the open wait is over, before a trial
 * has been let through: it tells what the next {@code tryAcquire()} would do, so a health check or
 * a status page never shows {@code open} for a breaker that would already let a call through.
 *
 * <p>Thread-safe: every method takes the breaker's lock, briefly; none of them waits or calls out
 * but to the clock.
 */
public final class CircuitBreaker {

  /** The state of a breaker, as {@link #state()} reports it. */
  public enum State {
    /** Calls go ahead. */
    CLOSED,
    /** Calls are refused until the open wait is over. */
    OPEN,
    /** The open wait is over: one trial call goes ahead (or is running). */
    HALF_OPEN;

    /** The name for JSON and logs: {@code closed}, {@code open}, {@code half_open}. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final int failureThreshold;
  private final long openNanos;
  private final LongSupplier nanoTime;

  private State state = State.CLOSED;
  private int failuresInARow;
  private long openedAt;
  private boolean trialRunning;

  /** A breaker on {@link System#nanoTime()}. */
  public CircuitBreaker(int failureThreshold, Duration openDuration) {
    this(failureThreshold, openDuration, System::nanoTime);
  }

  /**
   * @param failureThreshold failures in a row that open the breaker; at least 1
   * @param openDuration how long an open breaker refuses calls before one trial; not negative
   * @param nanoTime the clock, in nanoseconds of any origin, like {@link System#nanoTime()}: only
   *     differences are used, so it must never go back
   * @throws IllegalArgumentException for a threshold below 1 or a negative duration
   */
  public CircuitBreaker(int failureThreshold, Duration openDuration, LongSupplier nanoTime) {
    if (failureThreshold < 1) {
      throw new IllegalArgumentException("failureThreshold must be at least 1");
    }
    Objects.requireNonNull(openDuration, "openDuration");
    if (openDuration.isNegative()) {
      throw new IllegalArgumentException("openDuration must not be negative");
    }
    this.failureThreshold = failureThreshold;
    this.openNanos = openDuration.toNanos();
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /**
   * Whether a call may go ahead now. {@code true} must be followed by one verdict: {@link
   * #onSuccess()}, {@link #onFailure()} or {@link #onNotCalled()}. {@code false} means the breaker
   * is open, or half open with its trial call running.
   */
  public synchronized boolean tryAcquire() {
    switch (state) {
      case CLOSED:
        return true;
      case OPEN:
        if (!waitIsOver()) {
          return false;
        }
        state = State.HALF_OPEN;
        trialRunning = true;
        return true;
      case HALF_OPEN:
      default:
        if (trialRunning) {
          return false;
        }
        trialRunning = true;
        return true;
    }
  }

  /**
   * The call succeeded: the breaker closes and the count of failures starts again from zero.
   *
   * @return whether this verdict closed a breaker that was open or half open (for a log line)
   */
  public synchronized boolean onSuccess() {
    boolean closed = state != State.CLOSED;
    state = State.CLOSED;
    failuresInARow = 0;
    trialRunning = false;
    return closed;
  }

  /**
   * The call failed. A failed trial opens the breaker again; a closed breaker opens at the {@code
   * failureThreshold}-th failure in a row; an open breaker stays as it is.
   *
   * @return whether this verdict opened the breaker (for a log line)
   */
  public synchronized boolean onFailure() {
    switch (state) {
      case HALF_OPEN:
        open();
        return true;
      case CLOSED:
        if (++failuresInARow >= failureThreshold) {
          open();
          return true;
        }
        return false;
      case OPEN:
      default:
        return false;
    }
  }

  /**
   * The acquired call did not take place, or was abandoned without an answer (the caller was busy,
   * gave up, or was interrupted): no verdict on the dependency. A trial slot is freed for the next
   * caller; nothing else changes.
   */
  public synchronized void onNotCalled() {
    if (state == State.HALF_OPEN) {
      trialRunning = false;
    }
  }

  /**
   * The current state. An open breaker whose wait is over reports {@link State#HALF_OPEN}, before
   * any trial has been let through: the next {@link #tryAcquire()} would let one through.
   */
  public synchronized State state() {
    if (state == State.OPEN && waitIsOver()) {
      return State.HALF_OPEN;
    }
    return state;
  }

  /**
   * How long an open breaker still refuses calls; {@link Duration#ZERO} when it is closed, half
   * open, or its wait is over.
   */
  public synchronized Duration retryIn() {
    if (state != State.OPEN) {
      return Duration.ZERO;
    }
    long left = openNanos - (nanoTime.getAsLong() - openedAt);
    return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
  }

  private boolean waitIsOver() {
    return nanoTime.getAsLong() - openedAt >= openNanos;
  }

  private void open() {
    state = State.OPEN;
    openedAt = nanoTime.getAsLong();
    failuresInARow = 0;
    trialRunning = false;
  }
}
