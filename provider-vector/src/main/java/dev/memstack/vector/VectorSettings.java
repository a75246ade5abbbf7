package dev.memstack.vector;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.time.Duration;
import java.util.Set;

/**
 * The provider's own configuration keys, parsed and checked; a bad value fails with a {@link
 * ProviderConfigException} naming the key. Store keys (e.g. pgvector's {@code jdbc-url}) are read
 * by the store's factory.
 *
 * @param store which store: {@code embedded} (default) or {@code pgvector}
 * @param reembed rebuild every vector at start when the stored vectors come from another model
 * @param capture what a turn becomes: the user message alone, or user message and reply
 * @param chunkSize longest text of one record in characters; longer messages are split
 * @param topK most items one prefetch returns (the request's limit may lower it); the host asks for
 *     more than it shows, so that the stack can choose
 * @param threshold least cosine similarity for a vector hit
 * @param vectorWeight weight of the vector ranking in the fusion
 * @param keywordWeight weight of the BM25 ranking in the fusion
 * @param rrfK the rank offset of reciprocal rank fusion: larger flattens the ranks
 * @param recencyWeight how much of the score age can take away, 0 to 1
 * @param recencyHalfLife age at which the recency factor is half-way down
 * @param embedBatchSize most texts per embedder call
 * @param dedupeThreshold cosine similarity at which {@code remember} takes a text as a duplicate
 * @param contextChars how much of the message before a turn's message in its conversation is
 *     embedded with it (key expansion: the record is found by what it answered, and returned
 *     alone); 0 turns it off
 * @param candidates fewest hits taken from each of the vector and the keyword search before fusing;
 *     a floor well above what a context call asks for keeps an item's place independent of the
 *     limit
 * @param neighbourWeight how much of the best fused score among a candidate's conversation
 *     neighbours (the turn before and the turn after it, when they are candidates too) is added to
 *     its own: a reply is lifted by the question it answered and the other way round; 0 turns it
 *     off
 * @param contradictionCheckEnabled a statement that changes a value of an active memory is stored
 *     pending and goes to the owner's contradiction inbox, instead of superseding it
 */
public record VectorSettings(
    String store,
    boolean reembed,
    Capture capture,
    int chunkSize,
    int topK,
    double threshold,
    double vectorWeight,
    double keywordWeight,
    int rrfK,
    double recencyWeight,
    Duration recencyHalfLife,
    int embedBatchSize,
    double dedupeThreshold,
    int contextChars,
    int candidates,
    double neighbourWeight,
    boolean contradictionCheckEnabled) {

  /** What a turn becomes. */
  public enum Capture {
    /** The user message alone. */
    USER,
    /** The user message and the reply, one record (or chunks) per utterance. */
    EXCHANGE
  }

  /** The keys read here. */
  public static final Set<String> KEYS =
      Set.of(
          "store",
          "reembed",
          "capture",
          "chunk-size",
          "top-k",
          "threshold",
          "vector-weight",
          "keyword-weight",
          "rrf-k",
          "recency-weight",
          "recency-half-life",
          "embed-batch-size",
          "dedupe-threshold",
          "context-chars",
          "candidates",
          "neighbour-weight",
          "contradiction-check-enabled");

  /** Parses and checks the provider's keys of {@code config}. */
  public static VectorSettings from(ProviderConfig config) {
    String store = config.string("store", "embedded").toLowerCase(java.util.Locale.ROOT);
    double vectorWeight = config.decimal("vector-weight", 1.0, 0, 100);
    double keywordWeight = config.decimal("keyword-weight", 1.5, 0, 100);
    if (vectorWeight + keywordWeight == 0) {
      throw new ProviderConfigException(
          config.fullKey("vector-weight"), "vector-weight and keyword-weight must not both be 0");
    }
    Duration halfLife = config.positiveDuration("recency-half-life", Duration.ofDays(30));
    return new VectorSettings(
        store,
        config.bool("reembed", false),
        config.enumValue("capture", Capture.class, Capture.EXCHANGE),
        config.integer("chunk-size", 1000, 200, 20_000),
        config.integer("top-k", 50, 1, 200),
        config.decimal("threshold", 0.3, -1, 1),
        vectorWeight,
        keywordWeight,
        config.integer("rrf-k", 5, 1, 1000),
        config.decimal("recency-weight", 0.05, 0, 1),
        halfLife,
        config.integer("embed-batch-size", 32, 1, 1024),
        config.decimal("dedupe-threshold", 0.95, 0.5, 1),
        config.integer("context-chars", 0, 0, 4000),
        config.integer("candidates", 200, 10, 2000),
        config.decimal("neighbour-weight", 0.55, 0, 1),
        config.bool("contradiction-check-enabled", false));
  }
}
