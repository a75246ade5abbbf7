package dev.memstack.outbox;

/**
 * What one delivery or erasure attempt came to.
 *
 * @param outcome {@code delivered}, {@code skipped}, {@code failed}, or a {@link ProviderErasure}
 *     outcome for an erasure
 * @param removed memories the provider removed (erasures)
 * @param detail why it failed or was skipped; {@code null} when it went through
 * @param done whether the item leaves the lane's queue
 */
record Attempt(String outcome, long removed, String detail, boolean done) {

  static final String DELIVERED = "delivered";
  static final String SKIPPED = "skipped";
  static final String FAILED = "failed";

  static Attempt failed(String detail) {
    return new Attempt(FAILED, 0, detail, false);
  }
}
