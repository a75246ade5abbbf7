package dev.memstack.builtin.memory;

import dev.memstack.builtin.store.BucketTransaction;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.OwnerErasedException;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The file operations of the memory jobs (post-turn extraction and dreaming) over a {@link
 * WorkspaceMemory}: read a file or nothing, replace a core file after its cap, append to a daily
 * note, rewrite a file under its lock, list daily notes and the agents and owners that have files.
 * Thread-safe; every change is one bucket transaction.
 */
public final class MemoryFiles {

  private final WorkspaceMemory memory;

  public MemoryFiles(WorkspaceMemory memory) {
    this.memory = Objects.requireNonNull(memory, "memory");
  }

  /**
   * The erasure counts of the owners whose files the memory job on this thread works over, read
   * when it began ({@link #asJobOver}); {@code null} outside a job.
   */
  private final ThreadLocal<Map<OwnerKey, Long>> job = new ThreadLocal<>();

  /**
   * Runs one memory job's work over {@code owner}'s files on this thread (it reads them, asks the
   * model, writes what it derived): each write it makes to the owner's PERSONAL buckets is fenced
   * against an erasure of the owner after this call began ({@link WorkspaceStore#updateFenced}), so
   * that nothing derived from erased files lands after the erasure. A job over shared buckets only
   * ({@code owner} null) runs as it is.
   *
   * @throws OwnerErasedException from the first write refused: the owner was erased meanwhile
   */
  public <T> T asJobOver(OwnerKey owner, Supplier<T> work) {
    if (owner == null) {
      return work.get();
    }
    Map<OwnerKey, Long> outer = job.get();
    Map<OwnerKey, Long> seen = outer == null ? new HashMap<>() : new HashMap<>(outer);
    seen.putIfAbsent(owner, memory.store().erasures(owner));
    job.set(seen);
    try {
      return work.get();
    } finally {
      if (outer == null) {
        job.remove();
      } else {
        job.set(outer);
      }
    }
  }

  /** A write: fenced when a job on this thread works over the bucket's owner. */
  private <T> T write(Bucket bucket, Function<BucketTransaction, T> work) {
    Map<OwnerKey, Long> seen = job.get();
    Long count = seen == null || bucket.owner() == null ? null : seen.get(bucket.owner());
    return count == null ? memory.update(bucket, work) : memory.updateFenced(bucket, count, work);
  }

  /** Whether per-owner memory is on. */
  public boolean perOwner() {
    return memory.settings().perOwner();
  }

  /** Where an owner's extracted memory goes: their PERSONAL bucket, or TEAM with per-owner off. */
  public Bucket ownerBucket(AgentId agent, OwnerKey owner) {
    return perOwner() && owner != null ? Bucket.personal(agent, owner) : Bucket.team(agent);
  }

  /** The file's content, or the empty string when it does not exist (TEAM files seeded first). */
  public String readOrEmpty(Bucket bucket, WorkspacePath path) {
    if (bucket.scope() == Scope.TEAM) {
      memory.ensureAgent(bucket.agent());
    }
    return memory.store().read(bucket, path).orElse("");
  }

  /**
   * Replaces a file's content after the caps ({@code PROFILE.md}, {@code MEMORY.md} cut at a
   * section boundary).
   *
   * @return what the cap did
   */
  public SizeCaps.Capped replace(Bucket bucket, WorkspacePath path, String content) {
    SizeCaps.Capped capped = memory.cap(path, content, "content");
    write(
        bucket,
        tx -> {
          tx.write(path, capped.content(), WorkspaceRules.metaForNewFile(path));
          return null;
        });
    memory.memoryWritten(bucket.agent(), bucket, path);
    return capped;
  }

  /**
   * Replaces a file's content after the caps, as {@link #replace}, but only while its content is
   * still {@code expected} (checked under the bucket's lock; a missing file reads as empty).
   *
   * @return what the cap did, or empty when the file had changed and nothing was written
   */
  public Optional<SizeCaps.Capped> replaceIf(
      Bucket bucket, WorkspacePath path, String expected, String content) {
    SizeCaps.Capped capped = memory.cap(path, content, "content");
    boolean written =
        write(
            bucket,
            tx -> {
              if (!tx.read(path).orElse("").equals(expected)) {
                return false;
              }
              tx.write(path, capped.content(), WorkspaceRules.metaForNewFile(path));
              return true;
            });
    if (!written) {
      return Optional.empty();
    }
    memory.memoryWritten(bucket.agent(), bucket, path);
    return Optional.of(capped);
  }

  /**
   * Appends {@code entry} to the daily note of {@code date}, created with a {@code # date} heading
   * when missing.
   *
   * @return whether it was written (false when the note is full)
   */
  public boolean appendToDailyNote(Bucket bucket, LocalDate date, String entry) {
    WorkspacePath note = WorkspacePath.dailyNote(date);
    boolean written =
        write(
            bucket,
            tx -> {
              String base = tx.read(note).orElse("# " + date + "\n");
              String next =
                  (base.endsWith("\n") ? base : base + "\n") + "\n" + entry.strip() + "\n";
              if (next.getBytes(StandardCharsets.UTF_8).length > memory.settings().fileMaxBytes()) {
                return false;
              }
              tx.write(note, next, WorkspaceRules.metaForNewFile(note));
              return true;
            });
    if (written) {
      memory.memoryWritten(bucket.agent(), bucket, note);
    }
    return written;
  }

  /**
   * Rewrites a file under its bucket's lock: {@code change} gets the current content (empty when
   * missing) and returns the new one.
   */
  public String rewrite(Bucket bucket, WorkspacePath path, UnaryOperator<String> change) {
    String next =
        write(
            bucket,
            tx -> {
              String changed = change.apply(tx.read(path).orElse(""));
              tx.write(path, changed, WorkspaceRules.metaForNewFile(path));
              return changed;
            });
    memory.memoryWritten(bucket.agent(), bucket, path);
    return next;
  }

  /**
   * Forgets {@code text} in the bucket's history of entries and in its archive ({@link
   * MemoryItems#forgetText}): a line a morning card's answer removed for good.
   */
  public void forgetInHistory(Bucket bucket, String text) {
    memory.items().forgetText(bucket, text, MemoryItems.actor());
  }

  /** One daily note: its date and content. */
  public record DailyNote(LocalDate date, WorkspacePath path, String content) {}

  /** The bucket's daily notes dated {@code from} to {@code to} (inclusive), newest first. */
  public List<DailyNote> dailyNotes(Bucket bucket, LocalDate from, LocalDate to) {
    List<DailyNote> notes = new ArrayList<>();
    for (FileEntry entry : memory.store().list(bucket)) {
      LocalDate date = entry.path().dailyNoteDate();
      if (date != null && !date.isBefore(from) && !date.isAfter(to)) {
        memory
            .store()
            .read(bucket, entry.path())
            .ifPresent(content -> notes.add(new DailyNote(date, entry.path(), content)));
      }
    }
    notes.sort(Comparator.comparing(DailyNote::date).reversed());
    return notes;
  }

  /** Every agent that has TEAM or PERSONAL files, by id. */
  public List<AgentId> agents() {
    TreeSet<String> ids = new TreeSet<>();
    for (Bucket bucket : memory.store().buckets()) {
      if (bucket.agent() != null) {
        ids.add(bucket.agent().value());
      }
    }
    return ids.stream().map(AgentId::of).toList();
  }

  /** The owners that have PERSONAL files in {@code agent}, by key. */
  public List<OwnerKey> owners(AgentId agent) {
    TreeSet<String> keys = new TreeSet<>();
    for (Bucket bucket : memory.store().buckets()) {
      if (bucket.scope() == Scope.PERSONAL && bucket.agent().equals(agent)) {
        keys.add(bucket.owner().value());
      }
    }
    return keys.stream().map(OwnerKey::of).toList();
  }

  /** The paths of the bucket's files that start with {@code prefix}, in name order. */
  public List<WorkspacePath> list(Bucket bucket, String prefix) {
    List<WorkspacePath> paths = new ArrayList<>();
    for (FileEntry entry : memory.store().list(bucket)) {
      if (entry.path().value().startsWith(prefix)) {
        paths.add(entry.path());
      }
    }
    paths.sort(Comparator.naturalOrder());
    return paths;
  }

  /** Whether the file exists. */
  public boolean exists(Bucket bucket, WorkspacePath path) {
    return memory.store().entry(bucket, path).isPresent();
  }

  /** The file's content if it exists. */
  public Optional<String> read(Bucket bucket, WorkspacePath path) {
    return memory.store().read(bucket, path);
  }
}
