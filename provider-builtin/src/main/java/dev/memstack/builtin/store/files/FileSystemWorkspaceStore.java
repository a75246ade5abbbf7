package dev.memstack.builtin.store.files;

import dev.memstack.builtin.store.BucketTransaction;
import dev.memstack.builtin.store.Change;
import dev.memstack.builtin.store.ChangeListener;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.FileMeta;
import dev.memstack.builtin.store.OverlayTransaction;
import dev.memstack.builtin.store.OwnerErasedException;
import dev.memstack.builtin.store.StoreRules;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.support.AtomicFiles;
import dev.memstack.support.ErasureFence;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Workspace files as plain Markdown files under a data directory, readable, diffable and easy to
 * back up:
 *
 * <pre>
 * &lt;dataDir&gt;/global/                              GLOBAL files
 * &lt;dataDir&gt;/agents/&lt;agentId&gt;/                    TEAM files (AGENTS.md, memory/2026-04-01.md, ...)
 * &lt;dataDir&gt;/agents/&lt;agentId&gt;/owners/&lt;owner&gt;/     PERSONAL files of one owner (owner key encoded)
 * &lt;bucket&gt;/.workspace.json                     enabled and sortOrder of each file, seeded flag, owner key
 * </pre>
 *
 * <p>Size and update time are the file's own size and modification time, so they can never disagree
 * with its content; enabled and sort order live in the bucket's {@code .workspace.json}, written
 * atomically before the files of a commit (entries for files that do not exist are ignored, so a
 * crash between the two leaves a consistent bucket). Every file is written through a temporary file
 * that is flushed, read back and compared, then moved over the target atomically. A commit of
 * several files renames old versions to hidden backups first and puts them back if any step fails;
 * backups and temporary files left by a crash are resolved when the bucket is loaded.
 *
 * <p>Paths are resolved inside the bucket's directory only: a name must pass {@link WorkspacePath}
 * and must not lead outside the bucket through a symbolic link (the real path is checked); in a
 * TEAM bucket the {@code owners/} directory is reserved. Files added by hand are picked up when a
 * bucket is first loaded (at the latest after a restart) with the default metadata. Thread-safe:
 * one lock per bucket serialises writers; readers see immutable snapshots.
 */
public final class FileSystemWorkspaceStore implements WorkspaceStore {

  /** The metadata file of each bucket directory. */
  public static final String META_FILE = ".workspace.json";

  /** The directory of an agent that holds its owners' PERSONAL buckets. */
  public static final String OWNERS_DIR = StoreRules.OWNERS_DIR;

  private static final Logger log = LoggerFactory.getLogger(FileSystemWorkspaceStore.class);
  private static final String TRASH_DIR = ".trash";

  private final Path root;
  private final Clock clock;
  private final Function<WorkspacePath, FileMeta> defaults;
  private final ChangeListener listener;
  private final MetaFiles metaFiles = new MetaFiles();
  private final BucketLoader loader;
  private final Map<Bucket, ReentrantLock> locks = new ConcurrentHashMap<>();
  private final Map<Bucket, BucketState> states = new ConcurrentHashMap<>();

  /** How many times each owner was erased since this store opened ({@link #countErasure}). */
  private final ErasureFence<OwnerKey> erasures = new ErasureFence<>(64);

  /**
   * @param dataDir the directory to keep files in; created if missing
   * @param clock the clock that stamps update times
   * @param defaults the metadata of a file that has none recorded (e.g. one added by hand)
   * @param listener told of every commit, under the bucket's lock
   */
  public FileSystemWorkspaceStore(
      Path dataDir,
      Clock clock,
      Function<WorkspacePath, FileMeta> defaults,
      ChangeListener listener) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.defaults = Objects.requireNonNull(defaults, "defaults");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.loader = new BucketLoader(this::directory, metaFiles, defaults);
    try {
      Files.createDirectories(dataDir);
      this.root = dataDir.toRealPath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot use data directory " + dataDir, e);
    }
    emptyTrash();
  }

  /** The real path of the data directory. */
  public Path root() {
    return root;
  }

  /** The directory of a bucket (it may not exist yet). */
  public Path directory(Bucket bucket) {
    return switch (bucket.scope()) {
      case GLOBAL -> root.resolve("global");
      case TEAM -> root.resolve("agents").resolve(bucket.agent().value());
      case PERSONAL ->
          root.resolve("agents")
              .resolve(bucket.agent().value())
              .resolve(OWNERS_DIR)
              .resolve(OwnerDirectoryName.encode(bucket.owner()));
    };
  }

  @Override
  public List<FileEntry> list(Bucket bucket) {
    return state(bucket).sorted();
  }

  @Override
  public Optional<FileEntry> entry(Bucket bucket, WorkspacePath path) {
    return Optional.ofNullable(state(bucket).files().get(path));
  }

  @Override
  public Optional<String> read(Bucket bucket, WorkspacePath path) {
    if (!state(bucket).files().containsKey(path)) {
      return Optional.empty();
    }
    return readFile(bucket, path);
  }

  @Override
  public void checkPath(Bucket bucket, WorkspacePath path) {
    target(bucket, path);
  }

  @Override
  public boolean seeded(Bucket bucket) {
    return state(bucket).seeded();
  }

  @Override
  public <T> T update(Bucket bucket, Function<BucketTransaction, T> work) {
    ReentrantLock lock = lock(bucket);
    lock.lock();
    try {
      return apply(bucket, work);
    } finally {
      lock.unlock();
    }
  }

  /**
   * After the bucket's lock, the owner's erasure fence is held shared until the commit (an erasure
   * takes it alone, never with a bucket lock, so the two cannot deadlock). The counts live in
   * memory: this store serves one host, and a job that began before a restart did not outlive it.
   */
  @Override
  public <T> T updateFenced(Bucket bucket, long seen, Function<BucketTransaction, T> work) {
    OwnerKey owner = bucket.owner();
    if (owner == null) {
      return update(bucket, work);
    }
    ReentrantLock lock = lock(bucket);
    lock.lock();
    try (ErasureFence.Held held = erasures.holdIfNotErasedSince(owner, seen)) {
      if (held == null) {
        throw new OwnerErasedException(owner);
      }
      return apply(bucket, work);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public long erasures(OwnerKey owner) {
    return erasures.erasures(owner);
  }

  @Override
  public void countErasure(OwnerKey owner) {
    erasures.countErasure(owner);
  }

  /** Runs {@code work} on a transaction of the bucket and commits it; the bucket's lock is held. */
  private <T> T apply(Bucket bucket, Function<BucketTransaction, T> work) {
    PendingTransaction tx = new PendingTransaction(this, bucket, state(bucket), now());
    T result = work.apply(tx);
    commit(tx);
    return result;
  }

  @Override
  public long delete(Bucket bucket) {
    ReentrantLock lock = lock(bucket);
    lock.lock();
    try {
      BucketState state = state(bucket);
      Path dir = directory(bucket);
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        states.put(bucket, BucketState.EMPTY);
        return 0;
      }
      Path trash = root.resolve(TRASH_DIR);
      Path moved = trash.resolve(UUID.randomUUID().toString());
      try {
        Files.createDirectories(trash);
        AtomicFiles.move(dir, moved);
        AtomicFiles.syncDirectory(dir.getParent());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove " + bucket, e);
      }
      deleteRecursively(moved);
      states.put(bucket, BucketState.EMPTY);
      List<Change> changes = StoreRules.removed(bucket, state.files().values());
      StoreRules.tell(listener, bucket, changes);
      return changes.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public List<Bucket> buckets() {
    List<Bucket> buckets = new ArrayList<>();
    if (Files.isDirectory(directory(Bucket.global()), LinkOption.NOFOLLOW_LINKS)) {
      buckets.add(Bucket.global());
    }
    for (AgentId agent : agents()) {
      buckets.add(Bucket.team(agent));
      Path owners = directory(Bucket.team(agent)).resolve(OWNERS_DIR);
      for (Path ownerDir : subdirectories(owners)) {
        metaFiles.ownerOf(ownerDir).ifPresent(owner -> buckets.add(Bucket.personal(agent, owner)));
      }
    }
    return buckets;
  }

  /** One listing of the agent's owner folders, each named by its metadata. */
  @Override
  public List<OwnerKey> owners(AgentId agent) {
    List<OwnerKey> owners = new ArrayList<>();
    for (Path ownerDir : subdirectories(directory(Bucket.team(agent)).resolve(OWNERS_DIR))) {
      metaFiles.ownerOf(ownerDir).ifPresent(owners::add);
    }
    return owners;
  }

  @Override
  public List<Bucket> personalBuckets(OwnerKey owner) {
    List<Bucket> buckets = new ArrayList<>();
    for (AgentId agent : agents()) {
      Bucket bucket = Bucket.personal(agent, owner);
      Path dir = directory(bucket);
      if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
          && metaFiles.ownerOf(dir).filter(owner::equals).isPresent()) {
        buckets.add(bucket);
      }
    }
    return buckets;
  }

  @Override
  public void close() {
    states.clear();
  }

  // ---------------------------------------------------------------- paths and the sandbox

  /**
   * The file of {@code path} in {@code bucket}, after checking that it stays inside the bucket.
   *
   * @throws InvalidWorkspacePathException if the name is reserved or leads outside
   */
  Path target(Bucket bucket, WorkspacePath path) {
    StoreRules.checkNotReserved(bucket, path);
    Path dir = directory(bucket);
    Path target = dir.resolve(path.value());
    // A commit replaces a file by moving it aside and the new content in: a check made without
    // the bucket's lock can find the file gone for that moment, so it looks again.
    for (int attempt = 1; ; attempt++) {
      try {
        return resolved(dir, target, path);
      } catch (UncheckedIOException e) {
        if (!(e.getCause() instanceof NoSuchFileException) || attempt == 3) {
          throw new UncheckedIOException("cannot resolve " + path + " in " + bucket, e.getCause());
        }
      }
    }
  }

  private Path resolved(Path dir, Path target, WorkspacePath path) {
    Path existing = target;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      throw new InvalidWorkspacePathException("cannot be resolved inside the workspace");
    }
    try {
      Path real = existing.toRealPath();
      if (existing.startsWith(dir)) {
        if (!dir.toRealPath().equals(dir) || !real.startsWith(dir)) {
          throw new InvalidWorkspacePathException(
              "leads outside the workspace through a symbolic link");
        }
      } else if (!real.equals(existing)) {
        throw new InvalidWorkspacePathException(
            "leads outside the workspace through a symbolic link");
      }
      if (!existing.equals(target) && !Files.isDirectory(real)) {
        throw new InvalidWorkspacePathException(
            "goes through " + root.relativize(existing) + ", which is a file, not a directory");
      }
      if (existing.equals(target) && Files.isDirectory(real)) {
        throw new InvalidWorkspacePathException("names a directory, not a file");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return target;
  }

  Optional<String> readFile(Bucket bucket, WorkspacePath path) {
    try {
      byte[] bytes = Files.readAllBytes(target(bucket, path));
      return Optional.of(new String(bytes, StandardCharsets.UTF_8));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path + " of " + bucket, e);
    }
  }

  private List<AgentId> agents() {
    List<AgentId> agents = new ArrayList<>();
    for (Path dir : subdirectories(root.resolve("agents"))) {
      try {
        agents.add(AgentId.of(dir.getFileName().toString()));
      } catch (IllegalArgumentException e) {
        log.warn("ignoring {}: not a valid agent id", dir);
      }
    }
    return agents;
  }

  private static List<Path> subdirectories(Path dir) {
    List<Path> dirs = new ArrayList<>();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return dirs;
    }
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      for (Path child : stream) {
        if (!child.getFileName().toString().startsWith(".")
            && Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS)) {
          dirs.add(child);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
    dirs.sort(Comparator.naturalOrder());
    return dirs;
  }

  // ---------------------------------------------------------------- state

  private ReentrantLock lock(Bucket bucket) {
    return locks.computeIfAbsent(bucket, b -> new ReentrantLock());
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  private BucketState state(Bucket bucket) {
    BucketState state = states.get(bucket);
    if (state != null) {
      return state;
    }
    ReentrantLock lock = lock(bucket);
    lock.lock();
    try {
      state = states.get(bucket);
      if (state == null) {
        state = loader.load(bucket);
        states.put(bucket, state);
      }
      return state;
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- transactions

  private void commit(PendingTransaction tx) {
    if (tx.isEmpty()) {
      return;
    }
    Bucket bucket = tx.bucket();
    Path dir = directory(bucket);
    NavigableMap<WorkspacePath, FileEntry> after = tx.merged();
    boolean seeded = tx.seeded();
    boolean metaChanged =
        !tx.metaChanges().isEmpty()
            || seeded != tx.baseSeeded()
            || tx.writes().keySet().stream().anyMatch(p -> !tx.base().containsKey(p));

    List<Path> createdDirs = new ArrayList<>();
    Map<WorkspacePath, Path> temps = new LinkedHashMap<>();
    Map<WorkspacePath, Path> backups = new LinkedHashMap<>();
    List<WorkspacePath> moved = new ArrayList<>();
    Path metaFile = dir.resolve(META_FILE);
    byte[] oldMeta = null;
    boolean metaWritten = false;
    try {
      createDirectories(dir, createdDirs);
      for (Map.Entry<WorkspacePath, OverlayTransaction.PendingWrite> write :
          tx.writes().entrySet()) {
        Path target = dir.resolve(write.getKey().value());
        createDirectories(target.getParent(), createdDirs);
        temps.put(
            write.getKey(), AtomicFiles.writeTemp(target, write.getValue().bytes(), tx.now()));
      }
      if (metaChanged) {
        if (Files.exists(metaFile, LinkOption.NOFOLLOW_LINKS)) {
          oldMeta = Files.readAllBytes(metaFile);
        }
        AtomicFiles.write(metaFile, metaFiles.bytes(bucket, seeded, after), tx.now());
        metaWritten = true;
      }
      Set<Path> parents = new LinkedHashSet<>();
      for (Map.Entry<WorkspacePath, Path> temp : temps.entrySet()) {
        Path target = dir.resolve(temp.getKey().value());
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
          Path backup = AtomicFiles.sibling(target, AtomicFiles.BACKUP_SUFFIX);
          AtomicFiles.move(target, backup);
          backups.put(temp.getKey(), backup);
        }
        AtomicFiles.move(temp.getValue(), target);
        moved.add(temp.getKey());
        parents.add(target.getParent());
      }
      parents.forEach(AtomicFiles::syncDirectory);
    } catch (IOException | RuntimeException e) {
      rollback(dir, temps, backups, moved, metaFile, metaWritten, oldMeta, createdDirs);
      if (e instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new UncheckedIOException(
          "cannot write to " + bucket + ": " + e.getMessage(), (IOException) e);
    }
    for (Path backup : backups.values()) {
      try {
        Files.deleteIfExists(backup);
      } catch (IOException e) {
        log.warn("cannot remove backup {}: {}", backup, e.toString());
      }
    }

    states.put(bucket, BucketState.of(new TreeMap<>(after), seeded));
    StoreRules.tell(listener, bucket, tx.changes(after));
  }

  private void rollback(
      Path dir,
      Map<WorkspacePath, Path> temps,
      Map<WorkspacePath, Path> backups,
      List<WorkspacePath> moved,
      Path metaFile,
      boolean metaWritten,
      byte[] oldMeta,
      List<Path> createdDirs) {
    try {
      for (WorkspacePath path : moved) {
        Path target = dir.resolve(path.value());
        Path backup = backups.remove(path);
        if (backup != null) {
          AtomicFiles.move(backup, target);
        } else {
          Files.deleteIfExists(target);
        }
      }
      for (Map.Entry<WorkspacePath, Path> backup : backups.entrySet()) {
        AtomicFiles.move(backup.getValue(), dir.resolve(backup.getKey().value()));
      }
      for (Path temp : temps.values()) {
        Files.deleteIfExists(temp);
      }
      if (metaWritten) {
        if (oldMeta != null) {
          AtomicFiles.write(metaFile, oldMeta, now());
        } else {
          Files.deleteIfExists(metaFile);
        }
      }
      for (int i = createdDirs.size() - 1; i >= 0; i--) {
        Files.deleteIfExists(createdDirs.get(i));
      }
    } catch (IOException | RuntimeException e) {
      log.error("cannot roll back a failed write in {}: {}", dir, e.toString());
    }
  }

  private void createDirectories(Path dir, List<Path> created) throws IOException {
    List<Path> missing = new ArrayList<>();
    for (Path d = dir;
        d != null && !Files.exists(d, LinkOption.NOFOLLOW_LINKS);
        d = d.getParent()) {
      missing.add(d);
    }
    for (int i = missing.size() - 1; i >= 0; i--) {
      Files.createDirectory(missing.get(i));
      created.add(missing.get(i));
    }
  }

  private void emptyTrash() {
    Path trash = root.resolve(TRASH_DIR);
    if (Files.isDirectory(trash, LinkOption.NOFOLLOW_LINKS)) {
      deleteRecursively(trash);
    }
  }

  private static void deleteRecursively(Path dir) {
    try {
      FileTrees.delete(dir);
    } catch (IOException e) {
      log.warn(
          "cannot remove {} completely; it is removed at the next start: {}", dir, e.toString());
    }
  }
}
