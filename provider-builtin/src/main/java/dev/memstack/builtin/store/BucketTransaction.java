package dev.memstack.builtin.store;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.util.List;
import java.util.Optional;

/**
 * The changes being made to one bucket inside {@link WorkspaceStore#update}. Reads see the
 * transaction's own pending writes. Not thread-safe; used by one thread while it holds the lock.
 */
public interface BucketTransaction {

  /** The bucket being changed. */
  Bucket bucket();

  /** The bucket's files including pending writes, by sort order and then name. */
  List<FileEntry> list();

  /** One file's entry including pending writes. */
  Optional<FileEntry> entry(WorkspacePath path);

  /** One file's content including pending writes. */
  Optional<String> read(WorkspacePath path);

  /**
   * One file's content as it was committed before this transaction, whatever the transaction wrote
   * since; empty when the file did not exist then.
   */
  Optional<String> readBefore(WorkspacePath path);

  /**
   * Replaces (or creates) a file's content. {@code metaIfNew} applies only when the file does not
   * exist yet.
   *
   * @throws InvalidWorkspacePathException if the store reserves the name
   */
  void write(WorkspacePath path, String content, FileMeta metaIfNew);

  /**
   * Changes a file's metadata.
   *
   * @throws java.util.NoSuchElementException if the file does not exist
   */
  void setMeta(WorkspacePath path, FileMeta meta);

  /** Whether the bucket has been seeded. */
  boolean seeded();

  /** Records that the bucket has been seeded, so it is never seeded again. */
  void markSeeded();
}
