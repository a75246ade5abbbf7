package dev.memstack.builtin.postgres;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.BucketTransaction;
import dev.memstack.builtin.workspace.FileEntry;
import dev.memstack.builtin.workspace.FileMeta;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
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
import java.util.function.Function;

/**
 * One bucket transaction of {@link PostgresWorkspaceStore}: the bucket's rows as read under its
 * lock, and the writes, metadata changes and seeded flag made so far, seen merged. Used by one
 * thread inside the database transaction; the store writes it all in that transaction.
 */
final class PgBucketTransaction implements BucketTransaction {

  /** The listing order: sort order, then path (as the file store lists). */
  static final Comparator<FileEntry> ORDER =
      Comparator.comparingInt(FileEntry::sortOrder).thenComparing(FileEntry::path);

  record PendingWrite(String content, int bytes, FileMeta metaIfNew) {}

  private final PostgresWorkspaceStore store;
  private final Function<WorkspacePath, Optional<String>> reader;
  final Bucket bucket;
  final NavigableMap<WorkspacePath, FileEntry> base;
  final boolean baseSeeded;
  final Instant now;
  final Map<WorkspacePath, PendingWrite> writes = new LinkedHashMap<>();
  final Map<WorkspacePath, FileMeta> metaChanges = new LinkedHashMap<>();
  private boolean markSeeded;

  PgBucketTransaction(
      PostgresWorkspaceStore store,
      Bucket bucket,
      NavigableMap<WorkspacePath, FileEntry> base,
      boolean baseSeeded,
      Instant now,
      Function<WorkspacePath, Optional<String>> reader) {
    this.store = store;
    this.bucket = bucket;
    this.base = base;
    this.baseSeeded = baseSeeded;
    this.now = now;
    this.reader = reader;
  }

  @Override
  public Bucket bucket() {
    return bucket;
  }

  @Override
  public List<FileEntry> list() {
    List<FileEntry> entries = new ArrayList<>(merged().values());
    entries.sort(ORDER);
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
    return base.containsKey(path) ? reader.apply(path) : Optional.empty();
  }

  @Override
  public void write(WorkspacePath path, String content, FileMeta metaIfNew) {
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(metaIfNew, "metaIfNew");
    store.checkPath(bucket, path, merged().keySet());
    writes.put(
        path,
        new PendingWrite(content, content.getBytes(StandardCharsets.UTF_8).length, metaIfNew));
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
    return baseSeeded || markSeeded;
  }

  @Override
  public void markSeeded() {
    markSeeded = true;
  }

  boolean isEmpty() {
    return writes.isEmpty() && metaChanges.isEmpty() && (!markSeeded || baseSeeded);
  }

  /** The update time of a write: now, but always after the file's last one. */
  Instant writeTime(WorkspacePath path) {
    FileEntry before = base.get(path);
    if (before != null && !now.isAfter(before.updateTime())) {
      return before.updateTime().plusMillis(1);
    }
    return now;
  }

  FileEntry merged(WorkspacePath path) {
    FileEntry entry = base.get(path);
    PendingWrite pending = writes.get(path);
    if (pending != null) {
      FileMeta meta =
          entry != null ? new FileMeta(entry.enabled(), entry.sortOrder()) : pending.metaIfNew();
      entry =
          new FileEntry(path, meta.enabled(), meta.sortOrder(), pending.bytes(), writeTime(path));
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
    TreeMap<WorkspacePath, FileEntry> all = new TreeMap<>(base);
    Set<WorkspacePath> touched = new LinkedHashSet<>(writes.keySet());
    touched.addAll(metaChanges.keySet());
    for (WorkspacePath path : touched) {
      all.put(path, merged(path));
    }
    return all;
  }
}
