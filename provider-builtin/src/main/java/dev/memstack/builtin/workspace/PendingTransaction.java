package dev.memstack.builtin.workspace;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * One bucket transaction of {@link FileSystemWorkspaceStore}: the writes, metadata changes and
 * seeded flag it holds until the store commits it, seen merged over the bucket's state. Used by one
 * thread, under the bucket's lock.
 */
final class PendingTransaction implements BucketTransaction {

  /** A file's new content, its bytes, and the metadata it gets if it is new. */
  record PendingWrite(String content, byte[] bytes, FileMeta metaIfNew) {}

  private final FileSystemWorkspaceStore store;
  final Bucket bucket;
  final BucketState base;
  final Instant now;
  final Map<WorkspacePath, PendingWrite> writes = new LinkedHashMap<>();
  final Map<WorkspacePath, FileMeta> metaChanges = new LinkedHashMap<>();
  private boolean markSeeded;

  PendingTransaction(FileSystemWorkspaceStore store, Bucket bucket, BucketState base, Instant now) {
    this.store = store;
    this.bucket = bucket;
    this.base = base;
    this.now = now;
  }

  @Override
  public Bucket bucket() {
    return bucket;
  }

  @Override
  public List<FileEntry> list() {
    List<FileEntry> entries = new ArrayList<>(merged().values());
    entries.sort(BucketState.ORDER);
    return entries;
  }

  @Override
  public Optional<FileEntry> entry(WorkspacePath path) {
    return Optional.ofNullable(merged(path));
  }

  @Override
  public Optional<String> read(WorkspacePath path) {
    PendingWrite pending = writes.get(path);
    if (pending != null) {
      return Optional.of(pending.content());
    }
    return base.files().containsKey(path) ? store.readFile(bucket, path) : Optional.empty();
  }

  @Override
  public void write(WorkspacePath path, String content, FileMeta metaIfNew) {
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(metaIfNew, "metaIfNew");
    store.target(bucket, path);
    writes.put(
        path, new PendingWrite(content, content.getBytes(StandardCharsets.UTF_8), metaIfNew));
  }

  @Override
  public void setMeta(WorkspacePath path, FileMeta meta) {
    if (merged(path) == null) {
      throw new NoSuchElementException(path + " does not exist in " + bucket);
    }
    metaChanges.put(path, Objects.requireNonNull(meta, "meta"));
  }

  @Override
  public boolean seeded() {
    return base.seeded() || markSeeded;
  }

  @Override
  public void markSeeded() {
    markSeeded = true;
  }

  boolean isEmpty() {
    return writes.isEmpty() && metaChanges.isEmpty() && (!markSeeded || base.seeded());
  }

  private FileEntry merged(WorkspacePath path) {
    FileEntry entry = base.files().get(path);
    PendingWrite pending = writes.get(path);
    if (pending != null) {
      FileMeta meta =
          entry != null ? new FileMeta(entry.enabled(), entry.sortOrder()) : pending.metaIfNew();
      entry = new FileEntry(path, meta.enabled(), meta.sortOrder(), pending.bytes().length, now);
    }
    FileMeta change = metaChanges.get(path);
    if (entry != null && change != null) {
      entry =
          new FileEntry(
              path, change.enabled(), change.sortOrder(), entry.size(), entry.updateTime());
    }
    return entry;
  }

  NavigableMap<WorkspacePath, FileEntry> merged() {
    TreeMap<WorkspacePath, FileEntry> all = new TreeMap<>(base.files());
    Set<WorkspacePath> touched = new LinkedHashSet<>(writes.keySet());
    touched.addAll(metaChanges.keySet());
    for (WorkspacePath path : touched) {
      all.put(path, merged(path));
    }
    return all;
  }
}
