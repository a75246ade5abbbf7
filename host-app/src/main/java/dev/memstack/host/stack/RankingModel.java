package dev.memstack.host.stack;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Objects;

/**
 * A learned ranking model as {@code bench/realtalk/train-ranker.sh} writes it: a scoring function
 * over standardised {@link RankingFeatures} ({@code z[i] = (x[i] − mean[i]) / scale[i]}), linear
 * plus an optional layer of ReLU units, trained on pairs of candidates, with the embedding model
 * whose cosines it was trained on. JSON:
 *
 * <pre>{@code
 * {"format": "memstack-ranking/1", "name": "...", "embeddingModel": "...",
 *  "features": ["cosine", ...], "mean": [...], "scale": [...], "weights": [...], "bias": 0.0,
 *  "hidden": {"weights": [[...], ...], "bias": [...], "out": [...]},   (optional)
 *  "trainedOn": "..."}
 * }</pre>
 *
 * The score is {@code bias + Σ weights[i]·z[i] + Σ out[h]·max(0, hidden.weights[h]·z +
 * hidden.bias[h])}. A ReLU network is linear where it is evaluated, so the score splits exactly
 * into one contribution per feature ({@code weights[i]·z[i] + Σ over active units out[h]·
 * hidden.weights[h][i]·z[i]}) plus constant terms: the contributions {@code explain} shows.
 * Immutable.
 */
record RankingModel(
    String format,
    String name,
    String embeddingModel,
    List<String> features,
    double[] mean,
    double[] scale,
    double[] weights,
    double bias,
    Hidden hidden,
    String trainedOn) {

  /**
   * The optional layer of ReLU units: one row of {@code weights} (one weight per feature), one
   * {@code bias} and one {@code out} weight per unit.
   */
  record Hidden(double[][] weights, double[] bias, double[] out) {

    Hidden {
      if (weights == null || bias == null || out == null) {
        throw new IllegalArgumentException("hidden needs weights, bias and out");
      }
      if (weights.length != bias.length || weights.length != out.length) {
        throw new IllegalArgumentException("hidden weights, bias and out must be of one length");
      }
    }
  }

  /** The one format this host reads. */
  static final String FORMAT = "memstack-ranking/1";

  private static final ObjectMapper JSON =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  RankingModel {
    if (!FORMAT.equals(format)) {
      throw new IllegalArgumentException(
          "format is '" + format + "', this host reads '" + FORMAT + "'");
    }
    Objects.requireNonNull(embeddingModel, "embeddingModel");
    Objects.requireNonNull(features, "features");
    int n = features.size();
    if (n == 0
        || mean == null
        || scale == null
        || weights == null
        || mean.length != n
        || scale.length != n
        || weights.length != n) {
      throw new IllegalArgumentException(
          "features, mean, scale and weights must be non-empty lists of one length");
    }
    for (String feature : features) {
      if (!RankingFeatures.known(feature)) {
        throw new IllegalArgumentException(
            "feature '" + feature + "' is not one this host computes");
      }
    }
    for (int i = 0; i < n; i++) {
      if (!Double.isFinite(mean[i])
          || !Double.isFinite(weights[i])
          || !Double.isFinite(scale[i])
          || scale[i] <= 0) {
        throw new IllegalArgumentException(
            "feature '" + features.get(i) + "' has a non-finite weight, mean or scale");
      }
    }
    if (!Double.isFinite(bias)) {
      throw new IllegalArgumentException("bias is not finite");
    }
    if (hidden != null) {
      for (int h = 0; h < hidden.weights().length; h++) {
        double[] row = hidden.weights()[h];
        if (row == null || row.length != n) {
          throw new IllegalArgumentException("hidden unit " + h + " needs one weight per feature");
        }
        boolean finite = Double.isFinite(hidden.bias()[h]) && Double.isFinite(hidden.out()[h]);
        for (double value : row) {
          finite &= Double.isFinite(value);
        }
        if (!finite) {
          throw new IllegalArgumentException("hidden unit " + h + " has a non-finite weight");
        }
      }
    }
    name = name == null || name.isBlank() ? "unnamed" : name;
    features = List.copyOf(features);
  }

  /** Reads a model; {@link IllegalArgumentException} names what is wrong with it. */
  static RankingModel read(InputStream in) throws IOException {
    try {
      return JSON.readValue(in, RankingModel.class);
    } catch (com.fasterxml.jackson.databind.exc.ValueInstantiationException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new IllegalArgumentException(cause.getMessage(), cause);
    }
  }

  private double[] standardised(double[] x) {
    double[] z = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      z[i] = (x[i] - mean[i]) / scale[i];
    }
    return z;
  }

  /** The model's score of one candidate's feature values (in the order of {@link #features}). */
  double score(double[] x) {
    double[] z = standardised(x);
    double s = bias;
    for (int i = 0; i < z.length; i++) {
      s += weights[i] * z[i];
    }
    if (hidden != null) {
      for (int h = 0; h < hidden.out().length; h++) {
        s += hidden.out()[h] * Math.max(0, unit(h, z));
      }
    }
    return s;
  }

  /** The input of hidden unit {@code h} at standardised values {@code z}. */
  private double unit(int h, double[] z) {
    double unit = hidden.bias()[h];
    double[] row = hidden.weights()[h];
    for (int i = 0; i < z.length; i++) {
      unit += row[i] * z[i];
    }
    return unit;
  }

  /**
   * Each feature's contribution to the score of {@code x}: they add up to the score less the
   * model's constant terms (its bias and the active units' biases).
   */
  double[] contributions(double[] x) {
    double[] z = standardised(x);
    double[] c = new double[z.length];
    for (int i = 0; i < z.length; i++) {
      c[i] = weights[i] * z[i];
    }
    if (hidden != null) {
      for (int h = 0; h < hidden.out().length; h++) {
        if (unit(h, z) > 0) {
          double[] row = hidden.weights()[h];
          for (int i = 0; i < z.length; i++) {
            c[i] += hidden.out()[h] * row[i] * z[i];
          }
        }
      }
    }
    return c;
  }
}
