package dev.memstack.spi;

import java.util.List;

/**
 * The host's embedding model: texts to vectors. Thread-safe; may be slow (tens of milliseconds per
 * text on a CPU), so batch texts and keep calls off request paths where possible.
 *
 * <p>Asymmetric models need to know whether a text is a query or a stored passage (E5 prefixes
 * {@code query: } and {@code passage: }); the embedder adds such prefixes itself, so callers pass
 * plain text and the right {@link Kind}.
 */
public interface Embedder {

  /** Whether a text is searched for or stored. */
  enum Kind {
    QUERY,
    PASSAGE
  }

  /**
   * A stable id of the model and its settings (e.g. {@code e5-small-v2}); vectors from different
   * ids must never be mixed in one index.
   */
  String modelId();

  /** Length of every vector this embedder returns. */
  int dimension();

  /**
   * Embeds texts in one batch.
   *
   * @param texts the texts, never {@code null}, no {@code null} elements
   * @param kind query or passage
   * @return one vector of {@link #dimension()} floats per text, in order; never {@code null}
   * @throws IllegalStateException if the model fails
   */
  List<float[]> embed(List<String> texts, Kind kind);

  /** Embeds one query text. */
  default float[] embedQuery(String text) {
    return embed(List.of(text), Kind.QUERY).get(0);
  }
}
