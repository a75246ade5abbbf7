package dev.memstack.outbox;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What one delivery or erasure attempt came to.
 *
 * @param outcome {@code delivered}, {@code skipped}; for a failed delivery {@code failed} (counted
 *     towards {@code max-attempts}), {@code rejected} (the provider refused the turn for good) or
 *     {@code unavailable} (the provider is away or timed out: retried without limit); or a {@link
 *     ProviderErasure} outcome for an erasure
 * @param removed memories the provider removed (erasures)
 * @param detail why it failed or was skipped; {@code null} when it went through
 * @param done whether the item leaves the lane's queue
 */
record Attempt(String outcome, long removed, String detail, boolean done) {

  static final String DELIVERED = "delivered";
  static final String SKIPPED = "skipped";
  static final String FAILED = "failed";
  static final String REJECTED = "rejected";
  static final String UNAVAILABLE = "unavailable";

  static Attempt unavailable(String detail) {
    return new Attempt(UNAVAILABLE, 0, detail, false);
  }

  /** A failed delivery, classified by {@link Failures#outcome}. */
  static Attempt failed(Throwable failure) {
    return new Attempt(Failures.outcome(failure), 0, Failures.describe(failure), false);
  }

  /**
   * The attempt {@code future} completes with by {@code deadlineNanos} ({@link System#nanoTime}),
   * or {@code null} when there is none by then.
   */
  static Attempt await(CompletableFuture<Attempt> future, long deadlineNanos) {
    if (future == null) {
      return null;
    }
    try {
      long left = Math.max(0, deadlineNanos - System.nanoTime());
      return future.get(left, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException e) {
      return new Attempt(ProviderErasure.ERROR, 0, Failures.describe(e.getCause()), false);
    }
  }
}
