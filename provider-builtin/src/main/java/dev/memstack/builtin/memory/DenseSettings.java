package dev.memstack.builtin.memory;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.util.Set;

/**
 * The builtin provider's dense view settings ({@code config.*}), validated at start: whether the
 * keyword index also embeds every paragraph with the host's model, and how recall fuses the two
 * lists, weighted reciprocal rank fusion {@code 1 / (k + keyword rank) + weight / (k + dense
 * rank)}. Every key is optional.
 *
 * @param enabled {@code dense} (default {@code true}): embed paragraphs and recall by meaning too;
 *     {@code false} recalls by keywords alone (no embedding work at ingest)
 * @param weight {@code dense-weight} (default 3.0, 0-100): weight of the dense list against the
 *     keyword list's 1
 * @param fusionK {@code dense-fusion-k} (default 20, 1-1000): the {@code k} of the fusion
 * @param threshold {@code dense-threshold} (default 0.3, -1..1): least cosine similarity of a dense
 *     hit to the query (as the vector provider's {@code threshold}), so that a query that matches
 *     nothing is not answered with whatever happens to be nearest
 * @param candidates {@code dense-candidates} (default 100, 1-1000): hits of each search fused, at
 *     least (more when a request asks for more items), so that an item's place does not depend on
 *     the request's limit
 * @param keywordLead {@code dense-keyword-lead} (default {@value #DEFAULT_KEYWORD_LEAD}, 0 or
 *     1-100): when the keyword list's first hit scores at least this many times its second (or is
 *     its only hit), it is placed first of the fused list, whatever the dense list holds: BM25's
 *     clear winner is a name, a code or a rare word that the query and that paragraph alone share,
 *     which the embedding may not know; 0 turns it off (plain fusion)
 */
public record DenseSettings(
    boolean enabled,
    double weight,
    int fusionK,
    double threshold,
    int candidates,
    double keywordLead) {

  /**
   * The default {@code dense-keyword-lead}: twice the second hit's BM25 score. Ordinary questions,
   * whose words many paragraphs share, rarely give BM25's first hit such a lead (1.0 to 1.4 over
   * the everyday questions of the host's rare-token test), so they are fused by rank as before.
   */
  public static final double DEFAULT_KEYWORD_LEAD = 2.0;

  /** Every key these settings read. */
  public static final Set<String> KEYS =
      Set.of(
          "dense",
          "dense-weight",
          "dense-fusion-k",
          "dense-threshold",
          "dense-candidates",
          "dense-keyword-lead");

  /** The settings with the default {@code dense-keyword-lead}. */
  public DenseSettings(
      boolean enabled, double weight, int fusionK, double threshold, int candidates) {
    this(enabled, weight, fusionK, threshold, candidates, DEFAULT_KEYWORD_LEAD);
  }

  /** The defaults (as measured on REALTALK, bench/RESULTS.md). */
  public static DenseSettings defaults() {
    return from(ProviderConfig.empty(""));
  }

  /**
   * Reads and validates the keys.
   *
   * @throws ProviderConfigException naming the first invalid key
   */
  public static DenseSettings from(ProviderConfig config) {
    double weight = config.decimal("dense-weight", 3.0, 0, 100);
    double threshold = config.decimal("dense-threshold", 0.3, -1, 1);
    double keywordLead = config.decimal("dense-keyword-lead", DEFAULT_KEYWORD_LEAD);
    if (!(keywordLead == 0 || keywordLead >= 1 && keywordLead <= 100)) {
      throw new ProviderConfigException(
          config.fullKey("dense-keyword-lead"),
          "must be 0 or between 1 and 100, got " + keywordLead);
    }
    return new DenseSettings(
        config.bool("dense", true),
        weight,
        config.integer("dense-fusion-k", 20, 1, 1000),
        threshold,
        config.integer("dense-candidates", 100, 1, 1000),
        keywordLead);
  }

  /** No dense view: the keyword index alone. */
  public static DenseSettings off() {
    return new DenseSettings(false, 0, 20, 0.3, 100, 0);
  }

  /** Whether recall searches the dense view: enabled with a weight above 0. */
  boolean searched() {
    return enabled && weight > 0;
  }

  /**
   * Whether the keyword list's first hit, scoring {@code first}, leads it by {@link #keywordLead}:
   * {@code first >= keywordLead × second}, {@code second} the second hit's score (or {@code null}:
   * the first is the only hit).
   */
  boolean leads(double first, Double second) {
    if (keywordLead == 0 || !(first > 0)) {
      return false;
    }
    return second == null || first >= keywordLead * second;
  }
}
