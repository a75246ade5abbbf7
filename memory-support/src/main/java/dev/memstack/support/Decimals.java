package dev.memstack.support;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * {@code String.format(Locale.ROOT, "%.4f", value)} without a {@link java.util.Formatter}: a new
 * formatter per call looks up its locale's decimal symbols, which costs more than the ranking of
 * the value, and providers write a few such signals for each of their candidates on every recall.
 * {@code %.4f} rounds the shortest decimal that identifies the double ({@link Double#toString})
 * half up, and so does this.
 */
public final class Decimals {

  /**
   * Below this magnitude the value times 10,000 is within 2e-7 of its shortest decimal times
   * 10,000, so a fraction further than {@link #TIE_MARGIN} from one half rounds the same way.
   */
  private static final double FAST_LIMIT = 1e5;

  private static final double TIE_MARGIN = 1e-6;

  private Decimals() {}

  /** The value with four decimals as {@code %.4f} writes it; {@code ""} for {@code null}. */
  public static String fourPlaces(Double value) {
    if (value == null) {
      return "";
    }
    double v = value;
    if (!Double.isFinite(v)) {
      return String.format(Locale.ROOT, "%.4f", v); // NaN, Infinity, -Infinity
    }
    boolean negative = v < 0 || (v == 0 && 1 / v < 0);
    double magnitude = Math.abs(v);
    if (magnitude < FAST_LIMIT) {
      double scaled = magnitude * 10_000;
      double whole = Math.floor(scaled);
      double fraction = scaled - whole;
      if (Math.abs(fraction - 0.5) > TIE_MARGIN) {
        long units = (long) whole + (fraction > 0.5 ? 1 : 0);
        return written(negative, units);
      }
    }
    String text =
        new BigDecimal(Double.toString(v)).setScale(4, RoundingMode.HALF_UP).toPlainString();
    return negative && text.charAt(0) != '-' ? "-" + text : text; // -0.00001 is "-0.0000"
  }

  /** {@code units} ten-thousandths as {@code [-]I.FFFF}. */
  private static String written(boolean negative, long units) {
    long integer = units / 10_000;
    int fraction = (int) (units % 10_000);
    StringBuilder text = new StringBuilder(24);
    if (negative) {
      text.append('-');
    }
    text.append(integer).append('.');
    if (fraction < 1000) {
      text.append('0');
    }
    if (fraction < 100) {
      text.append('0');
    }
    if (fraction < 10) {
      text.append('0');
    }
    return text.append(fraction).toString();
  }
}
