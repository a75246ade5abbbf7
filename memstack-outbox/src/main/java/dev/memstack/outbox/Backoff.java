package dev.memstack.outbox;

import java.time.Duration;
import java.util.Objects;

/**
 * Exponential retry delay: {@code initial} after the first failure, doubling with every further
 * failure in a row, never more than {@code max} ({@code memstack.outbox.initial-backoff}, {@code
 * memstack.outbox.max-backoff}).
 */
record Backoff(Duration initial, Duration max) {

  Backoff {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
  }

  /** The wait after {@code failuresInARow} (at least 1) failures in a row. */
  Duration after(int failuresInARow) {
    Duration wait = initial;
    for (int i = 1; i < failuresInARow && wait.compareTo(max) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    return wait.compareTo(max) > 0 ? max : wait;
  }
}
