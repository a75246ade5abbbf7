package dev.memstack.builtin.store;

import dev.memstack.builtin.workspace.Bucket;
import java.util.Collection;
import java.util.Objects;

/**
 * One keyword search of a {@link KeywordIndex}: what to find, where, and how many hits.
 *
 * @param buckets the buckets the caller may see, never {@code null}
 * @param text free text; {@code null} or blank gives no hits
 * @param limit most hits
 * @param maxFiles most distinct files the hits come from
 * @param weight score factor of weighted files (core files)
 * @param excludedFiles {@link KeywordIndex#fileKey}s of files to leave out, never {@code null}
 * @param snippets how many of the first hits are placed at their first match (line and snippet);
 *     the others keep their paragraph's first line and start, which saves analysing texts a caller
 *     will not show. An index may place every hit.
 */
public record KeywordQuery(
    Collection<Bucket> buckets,
    String text,
    int limit,
    int maxFiles,
    double weight,
    Collection<String> excludedFiles,
    int snippets) {

  public KeywordQuery {
    Objects.requireNonNull(buckets, "buckets");
  }
}
