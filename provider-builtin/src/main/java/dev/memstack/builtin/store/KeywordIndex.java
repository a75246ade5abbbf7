package dev.memstack.builtin.store;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A keyword index of workspace files, kept in step with the store: by the store's listener ({@link
 * #committed}) or by the store itself, in the transaction of each commit. Thread-safe; changes are
 * searchable as soon as the changing call returns.
 */
public interface KeywordIndex extends AutoCloseable {

  /**
   * Brings the index in step with one commit of the store (the changes a {@link ChangeListener}
   * hears, under the bucket's lock); searchable when this returns. An index the store writes in its
   * own transactions has nothing to do.
   *
   * @param weighted which files' hits count {@code weight} times (core files)
   */
  void committed(Bucket bucket, List<Change> changes, Predicate<WorkspacePath> weighted);

  /**
   * Runs {@code work}, whose commits on this thread may become searchable together when it returns
   * (one near-real-time reopen for a batch of owners' notes instead of one each) rather than each
   * when its {@link #committed} returns. Everything {@code work} committed is searchable when this
   * returns, also when it throws. Nested calls join the outer one.
   *
   * @param coming Markdown the work is about to write (new daily-note entries): a dense index may
   *     embed its paragraphs in one call up front instead of one call per commit; a hint only
   */
  default <T> T batch(List<String> coming, Supplier<T> work) {
    return work.get();
  }

  /**
   * On open, after the store: indexes again what changed in {@code store} behind the index's back
   * (files edited by hand, a crash before a commit of the index) and drops files now gone. An index
   * the store writes in its own transactions is always in step and has nothing to do.
   */
  void catchUp(WorkspaceStore store, Predicate<WorkspacePath> weighted);

  /**
   * The best hits for the query's text in its buckets, highest score first: BM25, times the weight
   * for weighted files.
   */
  List<KeywordHit> search(KeywordQuery query);

  /**
   * {@link #search(KeywordQuery)} with every hit placed at its first match.
   *
   * @param buckets the buckets the caller may see
   * @param query free text; blank gives no hits
   * @param limit most hits
   * @param maxFiles most distinct files the hits come from
   * @param weight score factor of weighted files
   * @param excludedFiles {@link #fileKey}s of files to leave out
   */
  default List<KeywordHit> search(
      Collection<Bucket> buckets,
      String query,
      int limit,
      int maxFiles,
      double weight,
      Collection<String> excludedFiles) {
    return search(new KeywordQuery(buckets, query, limit, maxFiles, weight, excludedFiles, limit));
  }

  /** Whether the index keeps a dense view of its paragraphs, searched by {@link #nearest}. */
  default boolean dense() {
    return false;
  }

  /**
   * The embedding model of the dense view's vectors ({@link KeywordHit#vector()}), or {@code null}
   * for an index without the view.
   */
  default String denseModel() {
    return null;
  }

  /**
   * The paragraphs nearest to {@code query} in meaning (the dense view: cosine similarity of the
   * embedded query and paragraph, best first; a hit's score is that cosine), in the given buckets;
   * empty for an index without the view.
   */
  default List<KeywordHit> nearest(
      Collection<Bucket> buckets, String query, int limit, Collection<String> excludedFiles) {
    return List.of();
  }

  /**
   * Removes what removed and replaced files left in the index files: merges every segment that
   * holds deleted entries, commits, and lets go of the older files, so that no file of the index
   * keeps a removed file's text (what an erasure needs). Costs a merge; call it after erasing.
   */
  void expungeDeletes();

  /** Writes pending changes to disk now. */
  void commit();

  @Override
  void close();

  /** The key of a file in the index. */
  static String fileKey(Bucket bucket, WorkspacePath path) {
    return bucket.key() + "|" + path.value();
  }
}
