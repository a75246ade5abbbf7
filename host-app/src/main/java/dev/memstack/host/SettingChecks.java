package dev.memstack.host;

import java.time.Duration;

/**
 * The range checks of the host's {@code @ConfigurationProperties} records, so that a value out of
 * range stops the host at start with the same message wherever it is: the key, what it must be and
 * what was given.
 */
public final class SettingChecks {

  private SettingChecks() {}

  /**
   * {@code value}, or {@code fallback} when unset; refused, naming {@code key}, when not above 0.
   */
  public static Duration positive(Duration value, Duration fallback, String key) {
    Duration given = value == null ? fallback : value;
    if (given.isNegative() || given.isZero()) {
      throw new IllegalArgumentException(key + " must be positive, got: " + given);
    }
    return given;
  }

  /** Refuses {@code value} outside {@code min..max}, naming {@code key}. */
  public static void between(int value, int min, int max, String key) {
    between((double) value, min, max, key, String.valueOf(value));
  }

  /** Refuses {@code value} outside {@code min..max} (and NaN), naming {@code key}. */
  public static void between(double value, int min, int max, String key) {
    between(value, min, max, key, String.valueOf(value));
  }

  /** Refuses {@code value} below {@code min}, naming {@code key}. */
  public static void atLeast(int value, int min, String key) {
    if (value < min) {
      throw new IllegalArgumentException(key + " must be at least " + min + ", got: " + value);
    }
  }

  private static void between(double value, int min, int max, String key, String given) {
    if (!(value >= min && value <= max)) {
      throw new IllegalArgumentException(key + " must be " + min + "-" + max + ", got: " + given);
    }
  }
}
