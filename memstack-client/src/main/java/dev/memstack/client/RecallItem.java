package dev.memstack.client;

import java.time.Instant;
import java.util.Map;

/**
 * One recalled memory of a context answer.
 *
 * @param provider the provider instance that recalled it
 * @param text the memory as the model reads it
 * @param score the provider's relevance in 0..1 (scores of different providers do not compare)
 * @param scope {@code personal}, {@code team} or {@code global}
 * @param createdAt when it was written; {@code null} when unknown
 * @param metadata the provider's item {@code id} (for feedback) and, with {@code explain}, its
 *     ranking signals; never {@code null}
 */
public record RecallItem(
    String provider,
    String text,
    double score,
    String scope,
    Instant createdAt,
    Map<String, String> metadata) {

  public RecallItem {
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
  }
}
