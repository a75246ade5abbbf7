package dev.memstack.vector.lifecycle;

import java.util.Locale;

/**
 * How much a memory matters: its initial weight and how fast that weight decays per day (a factor
 * applied once per elapsed day). CRITICAL decays very slowly (lessons from incidents), HIGH slowly
 * (long-held preferences), NORMAL at the default pace, TEMPORAL fast (things that expire, such as
 * "merges freeze on Friday"). From a fresh record to the archive threshold of {@value
 * Lifecycle#ARCHIVE_BELOW} (decay goes by time alone): CRITICAL about 4 years, HIGH about 9 months,
 * NORMAL about 2 months, TEMPORAL about 2 weeks.
 */
public enum Importance {
  CRITICAL(0.95, 0.999),
  HIGH(0.80, 0.995),
  NORMAL(0.70, 0.98),
  TEMPORAL(0.50, 0.93);

  private final double initialWeight;
  private final double dailyRetention;

  Importance(double initialWeight, double dailyRetention) {
    this.initialWeight = initialWeight;
    this.dailyRetention = dailyRetention;
  }

  /** The weight a new record starts with. */
  public double initialWeight() {
    return initialWeight;
  }

  /** The factor each full day multiplies the weight by. */
  public double dailyRetention() {
    return dailyRetention;
  }

  /**
   * Parses a level in any case; {@code null}, blank or unknown text gives {@code fallback}, since
   * the level often comes from a model's answer.
   */
  public static Importance parse(Object value, Importance fallback) {
    if (value == null) {
      return fallback;
    }
    String text = value.toString().trim().toUpperCase(Locale.ROOT);
    for (Importance importance : values()) {
      if (importance.name().equals(text)) {
        return importance;
      }
    }
    return fallback;
  }
}
