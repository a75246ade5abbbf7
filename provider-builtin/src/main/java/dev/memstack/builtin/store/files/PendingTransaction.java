package dev.memstack.builtin.store.files;

import dev.memstack.builtin.store.OverlayTransaction;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.time.Instant;
import java.util.Optional;

/**
 * One bucket transaction of {@link FileSystemWorkspaceStore}: the writes, metadata changes and
 * seeded flag it holds until the store commits it, seen merged over the bucket's state ({@link
 * OverlayTransaction}). Base files are read from disk; a write is checked against the store's
 * reserved names. Used by one thread, under the bucket's lock.
 */
final class PendingTransaction extends OverlayTransaction {

  private final FileSystemWorkspaceStore store;

  PendingTransaction(FileSystemWorkspaceStore store, Bucket bucket, BucketState base, Instant now) {
    super(bucket, base.files(), base.seeded(), now);
    this.store = store;
  }

  @Override
  protected Optional<String> readBase(WorkspacePath path) {
    return store.readFile(bucket(), path);
  }

  @Override
  protected void checkWrite(WorkspacePath path) {
    store.target(bucket(), path);
  }
}
