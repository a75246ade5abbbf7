package dev.memstack.vector.lifecycle;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lifecycle metadata keys of a record and the arithmetic on them. A record takes part in the
 * lifecycle when it carries {@link #IMPORTANCE}; records without it (raw turns) keep weight 1,
 * never decay and rank as before, apart from reinforcement. Relevance = similarity × weight ×
 * recency × (1 + {@value #REINFORCEMENT_BONUS} × reinforcements); this class supplies the part
 * after similarity and recency ({@link #rankFactor}).
 */
public final class Lifecycle {

  /** CRITICAL, HIGH, NORMAL or TEMPORAL. */
  public static final String IMPORTANCE = "importance";

  /** The current weight, 0 to 1. */
  public static final String WEIGHT = "weight";

  /** How often prefetch returned the record. */
  public static final String REINFORCEMENTS = "reinforcements";

  /** When prefetch last returned the record, epoch millis. */
  public static final String LAST_RECALLED = "last_recalled";

  /** Up to when decay has been applied, epoch millis. */
  public static final String DECAYED_AT = "decayed_at";

  /** Why the lifecycle archived the record ({@code decay} or {@code contradicted}). */
  public static final String ARCHIVED_BY = "archived_by";

  /** Weights below this move the record to the archive. */
  public static final double ARCHIVE_BELOW = 0.2;

  /** The ranking bonus per reinforcement. */
  public static final double REINFORCEMENT_BONUS = 0.05;

  /** How much one recall raises the weight of a lifecycle record (at most to 1). */
  public static final double REINFORCEMENT_STEP = 0.02;

  /** The weight an archived record gets back when it is activated again. */
  public static final double AWAKENED_WEIGHT = 0.5;

  private Lifecycle() {}

  /** The metadata a new record of this importance starts with. */
  public static Map<String, Object> initial(Importance importance, Instant now) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put(IMPORTANCE, importance.name());
    metadata.put(WEIGHT, importance.initialWeight());
    metadata.put(REINFORCEMENTS, 0L);
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

  /** How often the record was recalled; 0 when unknown. */
  public static long reinforcements(Map<String, Object> metadata) {
    return longValue(metadata.get(REINFORCEMENTS), 0);
  }

  /**
   * Reinforcements beyond this count add nothing to the rank: what prefetch returns is reinforced,
   * so an unbounded bonus would let a few records crowd out the rest for good.
   */
  public static final long MAX_RANKED_REINFORCEMENTS = 20;

  /**
   * weight × (1 + bonus × reinforcements): the lifecycle's part of relevance (reinforcements
   * counted up to {@value #MAX_RANKED_REINFORCEMENTS}, so the factor is at most 2 × weight).
   */
  public static double rankFactor(Map<String, Object> metadata) {
    long counted = Math.min(MAX_RANKED_REINFORCEMENTS, Math.max(0, reinforcements(metadata)));
    return weight(metadata) * (1 + REINFORCEMENT_BONUS * counted);
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
