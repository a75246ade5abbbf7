package dev.memstack.builtin.store;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.time.Instant;

/**
 * One keyword hit: a paragraph of a workspace file that matches the query.
 *
 * @param bucket where the file is
 * @param path the file
 * @param line the 1-based line of the first matching word
 * @param text the whole paragraph (HTML comments removed)
 * @param snippet a short window of the paragraph around the first matching word
 * @param score BM25 score times the file's weight; higher is better
 * @param updateTime when the file last changed
 * @param vector the paragraph's vector in the index's dense view, or {@code null} (no dense view,
 *     or a store that does not hand it out); shared, not copied: do not modify
 */
public record KeywordHit(
    Bucket bucket,
    WorkspacePath path,
    int line,
    String text,
    String snippet,
    double score,
    Instant updateTime,
    float[] vector) {

  /** A copy carrying {@code newVector}. */
  public KeywordHit withVector(float[] newVector) {
    return new KeywordHit(bucket, path, line, text, snippet, score, updateTime, newVector);
  }
}
