package dev.memstack.vector.store;

import dev.memstack.spi.Embedder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test embedder with random but repeatable vectors: a text's vector is a Gaussian vector seeded
 * by the text's hash, so unrelated texts are spread like real embeddings of unrelated sentences and
 * the same text always gets the same vector. Counts embedded texts, so tests can check that nothing
 * was embedded twice. Thread-safe.
 */
public final class SyntheticEmbedder implements Embedder {

  private final String modelId;
  private final int dimension;
  private final AtomicLong texts = new AtomicLong();
  private final AtomicLong calls = new AtomicLong();

  public SyntheticEmbedder(String modelId, int dimension) {
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
  public List<float[]> embed(List<String> input, Kind kind) {
    calls.incrementAndGet();
    texts.addAndGet(input.size());
    List<float[]> out = new ArrayList<>(input.size());
    for (String text : input) {
      out.add(vector(text));
    }
    return out;
  }

  /** The (not normalised) vector of {@code text}. */
  public float[] vector(String text) {
    long seed = 1125899906842597L;
    for (byte b : (modelId + "\u0000" + text).getBytes(StandardCharsets.UTF_8)) {
      seed = 31 * seed + b;
    }
    SplittableRandom random = new SplittableRandom(seed);
    float[] v = new float[dimension];
    for (int i = 0; i < dimension; i++) {
      v[i] = (float) gaussian(random);
    }
    return v;
  }

  private static double gaussian(SplittableRandom random) {
    double u = 1 - random.nextDouble();
    double w = random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * w);
  }

  /** Texts embedded so far. */
  public long embeddedTexts() {
    return texts.get();
  }

  /** Embedder calls so far. */
  public long calls() {
    return calls.get();
  }
}
