package dev.memstack.vector;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * {@code String.format(Locale.ROOT, "%.4f", value)} without a {@link java.util.Formatter}: a new
 * formatter per call looks up its locale's decimal symbols, which costs more than the ranking of
 * the value. {@code %.4f} rounds the shortest decimal that identifies the double ({@link
 * Double#toString}) half up, and so does this.
 */
final class Decimals {

  private Decimals() {}

  /** The value with four decimals as {@code %.4f} writes it; {@code ""} for {@code null}. */
  static String fourPlaces(Double value) {
    if (value == null) {
      return "";
    }
    double v = value;
    if (!Double.isFinite(v)) {
      return String.format(Locale.ROOT, "%.4f", v); // NaN, Infinity, -Infinity
    }
    String text =
        new BigDecimal(Double.toString(v)).setScale(4, RoundingMode.HALF_UP).toPlainString();
    boolean negative = v < 0 || (v == 0 && 1 / v < 0);
    return negative && text.charAt(0) != '-' ? "-" + text : text; // -0.00001 is "-0.0000"
  }
}
