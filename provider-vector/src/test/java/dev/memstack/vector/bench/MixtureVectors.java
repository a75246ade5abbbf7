package dev.memstack.vector.bench;

import java.util.Random;

/**
 * Deterministic synthetic embeddings for benchmarks: unit vectors drawn from a mixture of Gaussian
 * clusters around random unit centres, so that, as with text embeddings, neighbours are much closer
 * than random pairs. Record {@code i} and query {@code j} always get the same vector. The same
 * distribution (256 clusters, noise 1/√d, seed 42) serves the pgvector benchmark, so figures
 * compare.
 */
public final class MixtureVectors {

  private final int dimension;
  private final float[][] centres;
  private final double noise;

  public MixtureVectors(int dimension, int clusters, long seed) {
    this.dimension = dimension;
    this.noise = 1 / Math.sqrt(dimension);
    Random random = new Random(seed);
    centres = new float[clusters][];
    for (int c = 0; c < clusters; c++) {
      centres[c] = gaussianUnit(random, dimension);
    }
  }

  public int dimension() {
    return dimension;
  }

  /** The vector of record {@code i}. */
  public float[] record(long i) {
    return draw(new Random(mix(i)));
  }

  /** The vector of query {@code j}, from the same distribution as the records. */
  public float[] query(long j) {
    return draw(new Random(mix(-j - 1)));
  }

  private float[] draw(Random random) {
    float[] centre = centres[random.nextInt(centres.length)];
    float[] v = new float[dimension];
    double norm = 0;
    for (int d = 0; d < dimension; d++) {
      v[d] = (float) (centre[d] + noise * random.nextGaussian());
      norm += (double) v[d] * v[d];
    }
    float scale = (float) (1 / Math.sqrt(norm));
    for (int d = 0; d < dimension; d++) {
      v[d] *= scale;
    }
    return v;
  }

  private static float[] gaussianUnit(Random random, int dimension) {
    float[] v = new float[dimension];
    double norm = 0;
    for (int d = 0; d < dimension; d++) {
      v[d] = (float) random.nextGaussian();
      norm += (double) v[d] * v[d];
    }
    float scale = (float) (1 / Math.sqrt(norm));
    for (int d = 0; d < dimension; d++) {
      v[d] *= scale;
    }
    return v;
  }

  /** SplitMix64's finaliser: spreads consecutive seeds over the whole range. */
  public static long mix(long x) {
    x += 0x9E3779B97F4A7C15L;
    x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
    x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
    return x ^ (x >>> 31);
  }
}
