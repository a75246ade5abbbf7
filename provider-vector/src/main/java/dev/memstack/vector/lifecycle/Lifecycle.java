package dev.memstack.vector.lifecycle;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lifecycle metadata keys of a record and the arithmetic on them. A record takes part in the
 * lifecycle when it carries {@link #IMPORTANCE}; records without it (raw turns) keep weight 1,
 * never decay and rank as before. The lifecycle's part of the score is the weight ({@link
 * #rankFactor}), which only time lowers (the nightly decay) and only an explicit activation raises:
 * recall does not change it, since being shown is not evidence of being useful. (Records written by
 * earlier versions may carry {@code reinforcements} and {@code last_recalled}, counts of how often
 * recall returned them; nothing reads them any more.)
 */
public final class Lifecycle {

  /** CRITICAL, HIGH, NORMAL or TEMPORAL. */
  public static final String IMPORTANCE = "importance";

  /** The current weight, 0 to 1. */
  public static final String WEIGHT = "weight";

  /** Up to when decay has been applied, epoch millis. */
  public static final String DECAYED_AT = "decayed_at";

  /** Why the lifecycle archived the record ({@code decay} or {@code contradicted}). */
  public static final String ARCHIVED_BY = "archived_by";

  /** Weights below this move the record to the archive. */
  public static final double ARCHIVE_BELOW = 0.2;

  /** The weight an archived record gets back when it is activated again. */
  public static final double AWAKENED_WEIGHT = 0.5;

  private Lifecycle() {}

  /** The metadata a new record of this importance starts with. */
  public static Map<String, Object> initial(Importance importance, Instant now) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put(IMPORTANCE, importance.name());
    metadata.put(WEIGHT, importance.initialWeight());
    metadata.put(DECAYED_AT, now.toEpochMilli());
    return metadata;
  }

  /** Whether the record carries lifecycle metadata. */
  public static boolean tracked(Map<String, Object> metadata) {
    return metadata.get(IMPORTANCE) != null;
  }

  /** The record's weight; 1 when it has none. */
  public static double weight(Map<String, Object> metadata) {
    Object value = metadata.get(WEIGHT);
    if (value instanceof Number n && Double.isFinite(n.doubleValue())) {
      return Math.max(0, Math.min(1, n.doubleValue()));
    }
    if (value instanceof String s) {
      try {
        return Math.max(0, Math.min(1, Double.parseDouble(s)));
      } catch (NumberFormatException e) {
        return 1.0;
      }
    }
    return 1.0;
  }

  /** The lifecycle's part of the score: the record's weight, 0 to 1 (1 without lifecycle). */
  public static double rankFactor(Map<String, Object> metadata) {
    return weight(metadata);
  }

  static long longValue(Object value, long fallback) {
    if (value instanceof Number n) {
      return n.longValue();
    }
    if (value instanceof String s) {
      try {
        return Long.parseLong(s.trim());
      } catch (NumberFormatException e) {
        return fallback;
      }
    }
    return fallback;
  }
}
