package dev.memstack.builtin.store;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
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
 * A bucket transaction as both workspace stores keep it: the bucket's files as read under its lock
 * (the base), and the writes, metadata changes and seeded flag made so far, seen merged over the
 * base. A store supplies how a base file's content is read, which paths it refuses and when a write
 * counts as made; it then commits {@link #writes()}, {@link #metaChanges()} and {@link #seeded()}
 * and reports {@link #changes}. Used by one thread while it holds the bucket's lock.
 */
public abstract class OverlayTransaction implements BucketTransaction {

  /** A file's new content, its UTF-8 bytes, and the metadata it gets if it is new. */
  public record PendingWrite(String content, byte[] bytes, FileMeta metaIfNew) {}

  private final Bucket bucket;
  private final Map<WorkspacePath, FileEntry> base;
  private final boolean baseSeeded;
  private final Instant now;
  private final Map<WorkspacePath, PendingWrite> writes = new LinkedHashMap<>();
  private final Map<WorkspacePath, FileMeta> metaChanges = new LinkedHashMap<>();
  private boolean markSeeded;

  /**
   * @param base the bucket's files before the transaction, by path (not copied: not changed by the
   *     store while the transaction runs)
   * @param now the transaction's time
   */
  protected OverlayTransaction(
      Bucket bucket, Map<WorkspacePath, FileEntry> base, boolean baseSeeded, Instant now) {
    this.bucket = bucket;
    this.base = base;
    this.baseSeeded = baseSeeded;
    this.now = now;
  }

  /** The content of a file of the base (one {@link #base} holds). */
  protected abstract Optional<String> readBase(WorkspacePath path);

  /**
   * Refuses a path the store cannot write.
   *
   * @throws InvalidWorkspacePathException if the store reserves the name
   */
  protected abstract void checkWrite(WorkspacePath path);

  /**
   * The update time a write of {@code path} gets: the transaction's time, but always after the
   * file's last one, so that an update time names one version of a file (for content caches and for
   * the optimistic locking of the memory-admin tools) even when two commits share a millisecond or
   * the clock stands still.
   */
  protected Instant writeTime(WorkspacePath path) {
    FileEntry before = base.get(path);
    if (before != null && !now.isAfter(before.updateTime())) {
      return before.updateTime().plusMillis(1);
    }
    return now;
  }

  @Override
  public Bucket bucket() {
    return bucket;
  }

  @Override
  public List<FileEntry> list() {
    List<FileEntry> entries = new ArrayList<>(merged().values());
    entries.sort(FileEntry.ORDER);
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
    return base.containsKey(path) ? readBase(path) : Optional.empty();
  }

  @Override
  public Optional<String> readBefore(WorkspacePath path) {
    return base.containsKey(path) ? readBase(path) : Optional.empty();
  }

  @Override
  public void write(WorkspacePath path, String content, FileMeta metaIfNew) {
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(metaIfNew, "metaIfNew");
    checkWrite(path);
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
    return baseSeeded || markSeeded;
  }

  @Override
  public void markSeeded() {
    markSeeded = true;
  }

  /** Whether the transaction changes nothing. */
  public boolean isEmpty() {
    return writes.isEmpty() && metaChanges.isEmpty() && (!markSeeded || baseSeeded);
  }

  /** The transaction's time. */
  public Instant now() {
    return now;
  }

  /** Whether the bucket was seeded before the transaction. */
  public boolean baseSeeded() {
    return baseSeeded;
  }

  /** The bucket's files before the transaction. */
  public Map<WorkspacePath, FileEntry> base() {
    return Collections.unmodifiableMap(base);
  }

  /** The writes, in the order they were made (the last write of a path wins). */
  public Map<WorkspacePath, PendingWrite> writes() {
    return Collections.unmodifiableMap(writes);
  }

  /** The metadata changes, in the order they were made. */
  public Map<WorkspacePath, FileMeta> metaChanges() {
    return Collections.unmodifiableMap(metaChanges);
  }

  /** One file as the transaction sees it, or {@code null}. */
  public FileEntry merged(WorkspacePath path) {
    FileEntry entry = base.get(path);
    PendingWrite pending = writes.get(path);
    if (pending != null) {
      FileMeta meta =
          entry != null ? new FileMeta(entry.enabled(), entry.sortOrder()) : pending.metaIfNew();
      entry =
          new FileEntry(
              path, meta.enabled(), meta.sortOrder(), pending.bytes().length, writeTime(path));
    }
    FileMeta change = metaChanges.get(path);
    if (entry != null && change != null) {
      entry =
          new FileEntry(
              path, change.enabled(), change.sortOrder(), entry.size(), entry.updateTime());
    }
    return entry;
  }

  /** Every file as the transaction sees it, by path. */
  public NavigableMap<WorkspacePath, FileEntry> merged() {
    TreeMap<WorkspacePath, FileEntry> all = new TreeMap<>(base);
    for (WorkspacePath path : touched()) {
      all.put(path, merged(path));
    }
    return all;
  }

  /**
   * The changes the committed transaction made, one per touched path; {@code after} is {@link
   * #merged()}.
   */
  public List<Change> changes(Map<WorkspacePath, FileEntry> after) {
    List<Change> changes = new ArrayList<>();
    for (WorkspacePath path : touched()) {
      PendingWrite write = writes.get(path);
      changes.add(
          new Change(
              bucket,
              path,
              base.get(path),
              after.get(path),
              write == null ? null : write.content()));
    }
    return changes;
  }

  /** The written and re-described paths, writes first. */
  private Set<WorkspacePath> touched() {
    Set<WorkspacePath> touched = new LinkedHashSet<>(writes.keySet());
    touched.addAll(metaChanges.keySet());
    return touched;
  }
}
