package dev.memstack.vector.store;

import java.time.Duration;

/**
 * One owner's trust in one record, as a store keeps it apart from the record: how often the owner
 * used it ({@code uses}) and marked it wrong ({@code wrongs}), the raw trust {@code sum} as it was
 * at {@code at}, and whether the record is hidden from this owner's recall.
 *
 * <p>The raw sum moves by {@value #USED} for a use and by {@value #WRONG} for a wrong, halves every
 * half-life and is kept within ±{@value #LIMIT}; stored as a value at a time, so a change is one
 * update ({@code sum = sum · 0.5^((now − at) / half-life) + delta}) that needs no read first. The
 * trust itself is {@code tanh(sum)}, in (−1, 1): 0 without feedback, −0.46 after one wrong, −0.76
 * after two, +0.24 after one use, +0.76 after four; each fades to 0 with the half-life.
 *
 * @param uses how many times the owner used the record (its feedback count)
 * @param wrongs how many times the owner marked it wrong
 * @param sum the raw trust at {@code at}
 * @param at epoch millis of the last change
 * @param hidden whether the record is hidden from this owner's recall (a shared record the owner
 *     marked wrong often enough)
 */
public record Trust(long uses, long wrongs, double sum, long at, boolean hidden) {

  /** What a use adds to the raw sum. */
  public static final double USED = 0.25;

  /** What a wrong adds to the raw sum. */
  public static final double WRONG = -0.5;

  /** The raw sum stays within ±this ({@code tanh(4)} = 0.9993). */
  public static final double LIMIT = 4.0;

  /** After this many half-lives the raw sum counts as 0. */
  public static final double FORGOTTEN_HALF_LIVES = 64;

  /** No feedback at all. */
  public static final Trust NONE = new Trust(0, 0, 0, 0, false);

  public Trust {
    if (uses < 0 || wrongs < 0 || !Double.isFinite(sum)) {
      throw new IllegalArgumentException("uses and wrongs must be >= 0 and sum finite");
    }
  }

  /**
   * The raw sum at {@code nowMillis} (never grows: a time before {@code at} counts as {@code at}).
   */
  public double sumAt(long nowMillis, Duration halfLife) {
    if (sum == 0) {
      return 0;
    }
    double halfLives = Math.max(0, nowMillis - at) / (double) halfLife.toMillis();
    return halfLives >= FORGOTTEN_HALF_LIVES ? 0 : sum * Math.pow(0.5, halfLives);
  }

  /** The trust at {@code nowMillis}, {@code tanh} of the raw sum then, in (−1, 1). */
  public double value(long nowMillis, Duration halfLife) {
    return Math.tanh(sumAt(nowMillis, halfLife));
  }

  /** This row after {@code change} (what every store computes, in its own language). */
  public Trust apply(TrustChange change) {
    double decayed = sumAt(change.at(), change.halfLife());
    double moved = Math.max(-LIMIT, Math.min(LIMIT, decayed + change.delta()));
    return new Trust(
        saturatedSum(uses, change.uses()),
        saturatedSum(wrongs, change.wrongs()),
        moved,
        Math.max(at, change.at()),
        hidden);
  }

  /**
   * This row hidden from the owner's recall, or shown again: shown, its wrong count starts again
   * from zero (the owner said the record is right after all), so one more wrong does not hide it.
   */
  public Trust hidden(boolean hide) {
    return new Trust(uses, hide ? wrongs : 0, sum, at, hide);
  }

  private static long saturatedSum(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
