package dev.memstack.vector.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One change of an owner's {@link Trust} in records: what the counts go up by, what the raw sum
 * moves by, when, and the half-life the old sum has faded with since its last change.
 *
 * @param uses added to the use count
 * @param wrongs added to the wrong count
 * @param delta added to the raw sum once it has faded to {@code at}
 * @param at epoch millis of the change
 * @param halfLife the trust half-life, positive
 */
public record TrustChange(long uses, long wrongs, double delta, long at, Duration halfLife) {

  /** The half-life of trust when none is configured: 60 days. */
  public static final Duration DEFAULT_HALF_LIFE = Duration.ofDays(60);

  public TrustChange {
    Objects.requireNonNull(halfLife, "halfLife");
    if (uses < 0 || wrongs < 0 || !Double.isFinite(delta) || halfLife.toMillis() <= 0) {
      throw new IllegalArgumentException("counts must be >= 0, delta finite, half-life positive");
    }
  }

  /** The owner used the records. */
  public static TrustChange used(Instant at, Duration halfLife) {
    return new TrustChange(1, 0, Trust.USED, at.toEpochMilli(), halfLife);
  }

  /** The owner marked the records wrong. */
  public static TrustChange wrong(Instant at, Duration halfLife) {
    return new TrustChange(0, 1, Trust.WRONG, at.toEpochMilli(), halfLife);
  }
}
