package dev.memstack.host.stack;

import dev.memstack.spi.Embedder;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallVector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One relevance on one scale for every provider's candidates: the cosine of each item to the query
 * under the host's embedding model. An item scores with the vector its provider attached ({@link
 * RecallItem#vector()}, when it is of the host's model and dimension); an item without one scores
 * with the vector of its text kept by text from an earlier call, or embedded now, one text at a
 * time (never batched: batching changes a quantised model's vectors) and at most {@code maxEmbeds}
 * per call, only while the call has time left before its deadline. The rest stay unscored ({@link
 * Double#NaN}) and rank by their providers alone.
 *
 * <p>The query vector comes from the embedder the providers use, which keeps the vector of a query
 * they just embedded: scoring costs no second query embedding. When no item carries a vector and
 * none can be embedded, nothing is embedded at all. A failing embedder leaves every item unscored.
 * Thread-safe.
 */
final class StackRelevance {

  private static final Logger log = LoggerFactory.getLogger(StackRelevance.class);

  /** Time one passage embedding is assumed to take when deciding whether one more fits. */
  private static final long EMBED_NANOS = 20_000_000L;

  private final Embedder embedder;
  private final int maxEmbeds;
  private final LongSupplier nanoTime;
  private final Map<String, float[]> passages;

  /**
   * @param embedder the host's embedder as the providers use it, or {@code null} for none (then
   *     nothing is scored)
   * @param maxEmbeds most item texts embedded per call (0: only attached or kept vectors count)
   * @param cacheSize most passage vectors kept, by text
   */
  StackRelevance(Embedder embedder, int maxEmbeds, int cacheSize, LongSupplier nanoTime) {
    this.embedder = embedder;
    this.maxEmbeds = maxEmbeds;
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    int capacity = Math.max(1, cacheSize);
    this.passages =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
            return size() > capacity;
          }
        };
  }

  /** Scores nothing. */
  static StackRelevance none() {
    return new StackRelevance(null, 0, 1, System::nanoTime);
  }

  /**
   * The vector of {@code query}, made now so that the providers that search by meaning find it in
   * the embedder's query cache instead of waiting for one of them to make it, and handed to {@link
   * #score(String, float[], List, List, long)}; {@code null} when there is no model or it failed
   * (each caller of the vector then meets the failure and reports it in its own way).
   */
  float[] embedQuery(String query) {
    if (embedder == null || query == null || query.isBlank()) {
      return null;
    }
    try {
      return embedder.embedQuery(query);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * The cosine of every item of {@code answers} to {@code query}, in the same shape ({@link
   * Double#NaN} for an item left unscored).
   *
   * @param deadlineNanos the {@link System#nanoTime()} by which the call must be answered
   */
  List<double[]> score(String query, List<List<RecallItem>> answers, long deadlineNanos) {
    return score(query, null, answers, deadlineNanos).cosine();
  }

  /**
   * The cosines of one call's items, in the shape of its answers ({@link Double#NaN} for an item
   * left unscored).
   *
   * @param cosine to the query
   * @param unnamed with the speakers taken out of both sides, or {@code null} when that was not
   *     asked for
   */
  record Scores(List<double[]> cosine, List<double[]> unnamed) {}

  /**
   * As {@link #score(String, List, long)}, and with {@code names} (the words of the query that name
   * the speakers it asks about, {@link AskedSpeakers#speakerNames}; empty when it names none) the
   * cosine of every item to the query with the speakers taken out of both: the query's vector with
   * the direction of each name's own vector projected out, and the item's vector with the direction
   * of its speaker label's ({@link QuestionCues#speakerPrefix}, such as {@code user: akib:})
   * projected out, so that what remains is what is asked and said apart from who. Each name and
   * label is embedded once and kept (an owner's speakers recur in every call): no embedding of the
   * query or of the items again.
   *
   * @param names {@code null} when that second cosine is not wanted
   */
  Scores score(
      String query, List<String> names, List<List<RecallItem>> answers, long deadlineNanos) {
    return score(query, null, names, answers, deadlineNanos);
  }

  /**
   * As {@link #score(String, List, List, long)}, with the query's vector made already ({@link
   * #embedQuery}; {@code null}: made here).
   */
  Scores score(
      String query,
      float[] madeQueryVector,
      List<String> names,
      List<List<RecallItem>> answers,
      long deadlineNanos) {
    List<double[]> scores = unscored(answers);
    boolean second = names != null;
    List<double[]> seconds = second ? unscored(answers) : null;
    Scores result = new Scores(scores, seconds);
    if (embedder == null || query == null || query.isBlank()) {
      return result;
    }
    try {
      String model = embedder.modelId();
      int dimension = embedder.dimension();
      boolean any = false;
      for (List<RecallItem> answer : answers) {
        for (RecallItem item : answer) {
          any |= usable(item.vector(), model, dimension);
        }
      }
      if (!any && maxEmbeds == 0) {
        return result;
      }
      float[] queryVector = madeQueryVector != null ? madeQueryVector : embedder.embedQuery(query);
      float[] unnamedVector = second ? unnamed(model, queryVector, names) : null;
      int embedded = 0;
      for (int a = 0; a < answers.size(); a++) {
        List<RecallItem> answer = answers.get(a);
        for (int i = 0; i < answer.size(); i++) {
          RecallItem item = answer.get(i);
          RecallVector vector = null;
          if (usable(item.vector(), model, dimension)) {
            vector = item.vector();
          } else {
            float[] values = kept(model, item.text());
            if (values == null
                && embedded < maxEmbeds
                && nanoTime.getAsLong() + EMBED_NANOS < deadlineNanos) {
              values = embedder.embed(List.of(item.text()), Embedder.Kind.PASSAGE).get(0);
              embedded++;
              keep(model, item.text(), values);
            }
            vector = values == null ? null : new RecallVector(model, values);
          }
          if (vector != null && vector.dimension() == queryVector.length) {
            scores.get(a)[i] = vector.cosine(queryVector);
            if (unnamedVector != null) {
              String label = QuestionCues.speakerPrefix(item.text());
              float[] values = vector.values();
              if (label != null) {
                values = without(values, named(model, label, Embedder.Kind.PASSAGE));
              }
              seconds.get(a)[i] = new RecallVector(model, values).cosine(unnamedVector);
            }
          }
        }
      }
    } catch (RuntimeException e) {
      log.warn(
          "Scoring recall items against the query failed, ranking by providers: {}", e.toString());
      for (double[] answer : scores) {
        Arrays.fill(answer, Double.NaN);
      }
      if (seconds != null) {
        seconds.forEach(answer -> Arrays.fill(answer, Double.NaN));
      }
    }
    return result;
  }

  private static List<double[]> unscored(List<List<RecallItem>> answers) {
    List<double[]> scores = new ArrayList<>(answers.size());
    for (List<RecallItem> answer : answers) {
      double[] none = new double[answer.size()];
      Arrays.fill(none, Double.NaN);
      scores.add(none);
    }
    return scores;
  }

  /** {@code query} with the direction of each name's vector projected out. */
  private float[] unnamed(String model, float[] query, List<String> names) {
    float[] v = query;
    for (String name : names) {
      v = without(v, named(model, name, Embedder.Kind.QUERY));
    }
    return v;
  }

  /** The vector of a name or a speaker label, embedded once and kept. */
  private float[] named(String model, String name, Embedder.Kind kind) {
    String key = NAME + kind + "\n" + name;
    float[] vector = kept(model, key);
    if (vector == null) {
      vector = embedder.embed(List.of(name), kind).get(0);
      keep(model, key, vector);
    }
    return vector;
  }

  /** {@code v} without its component along {@code direction} (a copy). */
  static float[] without(float[] v, float[] direction) {
    if (direction.length != v.length) {
      return v;
    }
    double dot = 0;
    double norm = 0;
    for (int i = 0; i < v.length; i++) {
      dot += (double) v[i] * direction[i];
      norm += (double) direction[i] * direction[i];
    }
    if (norm == 0) {
      return v;
    }
    double k = dot / norm;
    float[] out = new float[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = (float) (v[i] - k * direction[i]);
    }
    return out;
  }

  /** Prefix of a kept name vector's key, apart from passage texts. */
  private static final String NAME = "\u0000name\n";

  private static boolean usable(RecallVector vector, String model, int dimension) {
    return vector != null && vector.model().equals(model) && vector.dimension() == dimension;
  }

  private float[] kept(String model, String text) {
    synchronized (passages) {
      return passages.get(model + "\n" + text);
    }
  }

  private void keep(String model, String text, float[] vector) {
    synchronized (passages) {
      passages.put(model + "\n" + text, vector);
    }
  }

  /** How many passage vectors are kept now (for tests). */
  int kept() {
    synchronized (passages) {
      return passages.size();
    }
  }
}
