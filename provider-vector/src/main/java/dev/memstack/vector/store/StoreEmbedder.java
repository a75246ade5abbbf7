package dev.memstack.vector.store;

import dev.memstack.spi.Embedder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The host's {@link Embedder} as stores use it: passages are embedded in batches of texts of
 * similar length (sorted by length, so a batch pads little), every vector is checked (dimension,
 * finite values) and normalised to unit length, so cosine similarity is a dot product. Thread-safe
 * when the embedder is.
 */
public final class StoreEmbedder {

  private final Embedder embedder;
  private final int batchSize;

  /**
   * @param embedder the host's embedder
   * @param batchSize most texts per embedder call, at least 1
   */
  public StoreEmbedder(Embedder embedder, int batchSize) {
    this.embedder = Objects.requireNonNull(embedder, "embedder");
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, got " + batchSize);
    }
    this.batchSize = batchSize;
  }

  /** The model id the vectors are made with. */
  public String modelId() {
    return embedder.modelId();
  }

  /** The dimension of every vector. */
  public int dimension() {
    return embedder.dimension();
  }

  /** Embeds stored texts, in order, unit length. */
  public List<float[]> embedPassages(List<String> texts) {
    int n = texts.size();
    float[][] out = new float[n][];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingInt(i -> texts.get(i).length()));
    for (int start = 0; start < n; start += batchSize) {
      int end = Math.min(n, start + batchSize);
      List<String> batch = new ArrayList<>(end - start);
      for (int i = start; i < end; i++) {
        batch.add(texts.get(order[i]));
      }
      List<float[]> vectors = embedder.embed(batch, Embedder.Kind.PASSAGE);
      if (vectors == null || vectors.size() != batch.size()) {
        throw new IllegalStateException(
            "embedder '"
                + modelId()
                + "' returned "
                + (vectors == null ? "null" : vectors.size() + " vectors")
                + " for "
                + batch.size()
                + " texts");
      }
      for (int i = start; i < end; i++) {
        out[order[i]] = checked(vectors.get(i - start));
      }
    }
    return Arrays.asList(out);
  }

  /** Embeds one query, unit length. */
  public float[] embedQuery(String text) {
    return checked(embedder.embedQuery(text));
  }

  /** Checks a vector's dimension and values and returns a unit-length copy. */
  public float[] checked(float[] vector) {
    if (vector == null || vector.length != dimension()) {
      throw new IllegalStateException(
          "embedder '"
              + modelId()
              + "' returned a vector of "
              + (vector == null ? "null" : vector.length + " dimensions")
              + ", expected "
              + dimension());
    }
    for (float v : vector) {
      if (!Float.isFinite(v)) {
        throw new IllegalStateException("embedder '" + modelId() + "' returned a non-finite value");
      }
    }
    return normalized(vector);
  }

  /** A unit-length copy of {@code vector}; a zero vector stays zero. */
  public static float[] normalized(float[] vector) {
    double sum = 0;
    for (float v : vector) {
      sum += (double) v * v;
    }
    float[] copy = vector.clone();
    if (sum == 0) {
      return copy;
    }
    double norm = Math.sqrt(sum);
    for (int i = 0; i < copy.length; i++) {
      copy[i] = (float) (copy[i] / norm);
    }
    return copy;
  }

  /** Dot product; the cosine similarity of unit vectors. */
  public static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += (double) a[i] * b[i];
    }
    return sum;
  }
}
