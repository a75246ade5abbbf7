package dev.memstack.spi;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One recalled memory.
 *
 * @param text the memory as the model should read it, never {@code null} or blank
 * @param score relevance, higher is better; comparable within one provider's answer only
 * @param scope who may see the memory, never {@code null}
 * @param owner the owner of a {@link Scope#PERSONAL} memory; {@code null} for TEAM and GLOBAL
 * @param source the id of the provider instance that returned it, never {@code null}
 * @param createdAt when the memory was written; {@code null} when unknown
 * @param metadata extra string facts (file, line, type, signals behind the rank); never {@code
 *     null}, copied and unmodifiable
 * @param vector the embedding the provider holds for this memory, so that the host can rank every
 *     provider's items on one scale without embedding them again; {@code null} when the provider
 *     has none (the default). Never sent to clients. Since 0.4.0.
 */
public record RecallItem(
    String text,
    double score,
    Scope scope,
    OwnerKey owner,
    String source,
    Instant createdAt,
    Map<String, String> metadata,
    RecallVector vector) {

  /**
   * @throws IllegalArgumentException if the text is blank, the score not finite, or a PERSONAL item
   *     has no owner
   */
  public RecallItem {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(source, "source");
    if (text.isBlank()) {
      throw new IllegalArgumentException("text must not be blank");
    }
    if (!Double.isFinite(score)) {
      throw new IllegalArgumentException("score must be finite, got: " + score);
    }
    if (scope == Scope.PERSONAL && owner == null) {
      throw new IllegalArgumentException("a PERSONAL item needs its owner");
    }
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
  }

  /** An item without a vector (the form of SPI 0.1 to 0.3). */
  public RecallItem(
      String text,
      double score,
      Scope scope,
      OwnerKey owner,
      String source,
      Instant createdAt,
      Map<String, String> metadata) {
    this(text, score, scope, owner, source, createdAt, metadata, null);
  }

  /** A copy with another score. */
  public RecallItem withScore(double newScore) {
    return new RecallItem(text, newScore, scope, owner, source, createdAt, metadata, vector);
  }

  /**
   * A copy carrying {@code newVector} ({@code null} for none).
   *
   * @since 0.4.0
   */
  public RecallItem withVector(RecallVector newVector) {
    return new RecallItem(text, score, scope, owner, source, createdAt, metadata, newVector);
  }

  /** A copy with another text. */
  public RecallItem withText(String newText) {
    return new RecallItem(newText, score, scope, owner, source, createdAt, metadata, vector);
  }
}
