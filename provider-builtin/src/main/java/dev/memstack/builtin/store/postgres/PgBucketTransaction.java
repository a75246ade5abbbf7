package dev.memstack.builtin.store.postgres;

import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.OverlayTransaction;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.time.Instant;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.function.Function;

/**
 * One bucket transaction of {@link PostgresWorkspaceStore}: the bucket's rows as read under its
 * lock, and the writes, metadata changes and seeded flag made so far, seen merged ({@link
 * OverlayTransaction}). Base contents are read in the same database transaction; a write is checked
 * against the merged listing; a write's time is always after the file's last one ({@link
 * OverlayTransaction#writeTime}). Used by one thread inside the database transaction; the store
 * writes it all in that transaction.
 */
final class PgBucketTransaction extends OverlayTransaction {

  private final PostgresWorkspaceStore store;
  private final Function<WorkspacePath, Optional<String>> reader;

  PgBucketTransaction(
      PostgresWorkspaceStore store,
      Bucket bucket,
      NavigableMap<WorkspacePath, FileEntry> base,
      boolean baseSeeded,
      Instant now,
      Function<WorkspacePath, Optional<String>> reader) {
    super(bucket, base, baseSeeded, now);
    this.store = store;
    this.reader = reader;
  }

  @Override
  protected Optional<String> readBase(WorkspacePath path) {
    return reader.apply(path);
  }

  @Override
  protected void checkWrite(WorkspacePath path) {
    store.checkPath(bucket(), path, merged().keySet());
  }
}
