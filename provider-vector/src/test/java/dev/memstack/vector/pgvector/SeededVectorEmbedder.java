package dev.memstack.vector.pgvector;

import dev.memstack.spi.Embedder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * An embedder for recall tests: every distinct text gets its own random unit vector (seeded by the
 * text), so nearest neighbours are known exactly and computed again in plain Java.
 */
final class SeededVectorEmbedder implements Embedder {

  private final String modelId;
  private final int dimension;

  SeededVectorEmbedder(String modelId, int dimension) {
    this.modelId = modelId;
    this.dimension = dimension;
  }

  @Override
  public String modelId() {
    return modelId;
  }

  @Override
  public int dimension() {
    return dimension;
  }

  @Override
  public List<float[]> embed(List<String> texts, Kind kind) {
    List<float[]> vectors = new ArrayList<>(texts.size());
    for (String text : texts) {
      vectors.add(vector(text));
    }
    return vectors;
  }

  /** The unit vector of {@code text}. */
  float[] vector(String text) {
    Random random = new Random(text.hashCode() * 31L + text.length());
    float[] vector = new float[dimension];
    double norm = 0;
    for (int i = 0; i < dimension; i++) {
      vector[i] = (float) random.nextGaussian();
      norm += vector[i] * vector[i];
    }
    float scale = (float) (1 / Math.sqrt(norm));
    for (int i = 0; i < dimension; i++) {
      vector[i] *= scale;
    }
    return vector;
  }
}
