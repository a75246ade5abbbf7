package dev.memstack.spi;

import java.util.Arrays;
import java.util.Objects;

/**
 * The embedding a provider already holds for a recalled item, so that the host can score every
 * provider's candidates on one scale (the cosine to the query under one model) without embedding
 * them again. Only vectors of the host's own model count: the host compares {@link #model} with
 * {@link Embedder#modelId()} and {@link #values}' length with {@link Embedder#dimension()}, and
 * ignores any other vector.
 *
 * <p>Attach the vector of the text the item stands for (as the provider embedded it as a {@link
 * Embedder.Kind#PASSAGE passage}); it need not be normalised. Immutable: the values are copied in
 * and out.
 *
 * @param model the {@link Embedder#modelId()} of the embedder that made the vector, never blank
 * @param values the vector, never empty, every value finite
 * @since 0.4.0
 */
public record RecallVector(String model, float[] values) {

  /**
   * @throws IllegalArgumentException if the model is blank or the values empty or not finite
   */
  public RecallVector {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(values, "values");
    if (model.isBlank()) {
      throw new IllegalArgumentException("model must not be blank");
    }
    if (values.length == 0) {
      throw new IllegalArgumentException("values must not be empty");
    }
    values = values.clone();
    for (float value : values) {
      if (!Float.isFinite(value)) {
        throw new IllegalArgumentException("values must be finite, got: " + value);
      }
    }
  }

  /** A copy of the vector. */
  @Override
  public float[] values() {
    return values.clone();
  }

  /** The vector's length. */
  public int dimension() {
    return values.length;
  }

  /**
   * The cosine similarity to {@code other} (need not be normalised); 0 when either is all zeros.
   *
   * @throws IllegalArgumentException if the lengths differ
   */
  public double cosine(float[] other) {
    if (other.length != values.length) {
      throw new IllegalArgumentException(
          "dimension mismatch: " + values.length + " vs " + other.length);
    }
    double dot = 0;
    double a = 0;
    double b = 0;
    for (int i = 0; i < values.length; i++) {
      dot += (double) values[i] * other[i];
      a += (double) values[i] * values[i];
      b += (double) other[i] * other[i];
    }
    return a == 0 || b == 0 ? 0 : dot / Math.sqrt(a * b);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecallVector v && model.equals(v.model) && Arrays.equals(values, v.values);
  }

  @Override
  public int hashCode() {
    return 31 * model.hashCode() + Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "RecallVector[model=" + model + ", dimension=" + values.length + "]";
  }
}
