package dev.memstack.host.model;

/** Small vector helpers shared by the embedders. */
final class Vectors {

  private Vectors() {}

  /** Scales the vector in place to unit length (a zero vector stays zero) and returns it. */
  static float[] normalize(float[] vector) {
    double sum = 0;
    for (float v : vector) {
      sum += (double) v * v;
    }
    if (sum > 0) {
      float scale = (float) (1.0 / Math.sqrt(sum));
      for (int i = 0; i < vector.length; i++) {
        vector[i] *= scale;
      }
    }
    return vector;
  }
}
