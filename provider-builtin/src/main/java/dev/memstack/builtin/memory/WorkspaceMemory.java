package dev.memstack.builtin.memory;

import dev.memstack.builtin.store.BucketTransaction;
import dev.memstack.builtin.store.Change;
import dev.memstack.builtin.store.ConversationBuffer;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.store.KeywordIndex;
import dev.memstack.builtin.store.StoreAdapters;
import dev.memstack.builtin.store.StoreSettings;
import dev.memstack.builtin.store.Stores;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.Turn;
import dev.memstack.support.Require;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The builtin provider's memory: workspace files in a {@link WorkspaceStore} with a {@link
 * KeywordIndex} kept in step by every commit. It seeds an agent's core files on first use, resolves
 * scopes, applies the size caps, builds the cached system prompt block, answers per-turn recall,
 * appends turns to daily notes and erases owners. Thread-safe. This class wires the parts and is
 * the one entry point of the provider, the tools and the jobs; the work is done by {@link
 * CoreFileSeeder}, {@link PromptBlocks}, {@link KeywordRecall}, {@link TurnNotes}, {@link
 * WorkspaceFiles} and {@link MemoryItems} (the entries one by one, with their history).
 */
public final class WorkspaceMemory implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WorkspaceMemory.class);

  private final BuiltinSettings settings;
  private final SizeCaps caps;
  private final KeywordIndex index;
  private final WorkspaceStore store;
  private final CoreFileSeeder seeder;
  private final PromptBlocks prompts;
  private final KeywordRecall recall;
  private final TurnNotes turnNotes;
  private final WorkspaceFiles files;
  private final MemoryItems items;
  private final StoreAdapters adapters;
  private final AutoCloseable watcher;
  private volatile MemoryWrites writes = (agent, bucket, path) -> {};

  /**
   * Told after a memory write made through this class's write methods or {@link MemoryFiles} (the
   * tools and the memory jobs), not after a turn's daily-note entry, a metadata change, a snapshot
   * import or an erasure. Called on the writing thread after the commit; must return quickly and
   * never throw.
   */
  @FunctionalInterface
  public interface MemoryWrites {

    /**
     * @param agent the agent the write was made for ({@code null} when unknown, a GLOBAL write of a
     *     job)
     * @param bucket the bucket written
     * @param path the file written
     */
    void written(AgentId agent, Bucket bucket, WorkspacePath path);
  }

  /** One file as listed: its bucket and entry. */
  public record Listed(Bucket bucket, FileEntry entry) {}

  /** A read file. */
  public record ReadFile(Bucket bucket, FileEntry entry, String content) {}

  /** What a write did. */
  public record Written(
      Bucket bucket, FileEntry entry, boolean created, int bytesWritten, SizeCaps.Capped capped) {}

  /** What an edit did; {@code truncated} when the result had to be cut to the file's cap. */
  public record Edited(Bucket bucket, FileEntry entry, int replacements, boolean truncated) {}

  /**
   * Opens the memory in the store {@code storeSettings} chooses ({@link Stores}): files and a
   * Lucene index under {@code dataDir}, or rows of PostgreSQL (files, keyword index and versions in
   * one database), whose schema is created or upgraded first. The index is brought up to date with
   * the files first.
   *
   * <p>The dense view ({@code dense}, paragraphs embedded by {@code embedder}) belongs to the
   * Lucene index; on PostgreSQL recall is keyword only.
   *
   * @param source the provider instance id, stamped on recall items
   * @param promptChanged told when an agent's system prompt block changed ({@code null} = all)
   * @throws IllegalStateException when the database cannot be reached or set up
   */
  public static WorkspaceMemory open(
      BuiltinSettings settings,
      StoreSettings storeSettings,
      DenseSettings dense,
      Embedder embedder,
      Path dataDir,
      Clock clock,
      String source,
      Consumer<AgentId> promptChanged) {
    boolean denseView = dense.enabled() && storeSettings.kind() == StoreSettings.Kind.FILES;
    if (denseView) {
      Objects.requireNonNull(embedder, "embedder");
    }
    StoreAdapters adapters =
        Stores.open(
            storeSettings,
            new Stores.Needs(
                dataDir,
                clock,
                settings.snippetChars(),
                settings.indexCommitInterval(),
                denseView ? embedder : null,
                WorkspaceRules::metaForNewFile,
                WorkspaceRules::isCoreForSearch));
    try {
      return new WorkspaceMemory(
          settings,
          denseView ? dense : DenseSettings.off(),
          clock,
          source,
          promptChanged,
          adapters);
    } catch (RuntimeException e) {
      adapters.keywordIndex().close();
      adapters.close();
      throw e;
    }
  }

  private WorkspaceMemory(
      BuiltinSettings settings,
      DenseSettings dense,
      Clock clock,
      String source,
      Consumer<AgentId> promptChanged,
      StoreAdapters adapters) {
    this.settings = Objects.requireNonNull(settings, "settings");
    Require.nonNull("source clock promptChanged", source, clock, promptChanged);
    this.caps =
        new SizeCaps(
            settings.profileMaxChars(), settings.memoryMaxChars(), settings.fileMaxBytes());
    Templates templates = Templates.load(settings.templatesDir());
    this.adapters = adapters;
    this.index = adapters.keywordIndex();
    this.store = adapters.workspaceStore(this::committed);
    this.items = new MemoryItems(store, clock, caps, templates, this::memoryWritten);
    this.seeder = new CoreFileSeeder(store, templates);
    this.prompts = new PromptBlocks(settings, store, templates, seeder, promptChanged);
    this.recall = new KeywordRecall(settings, dense, source, clock, store, index, prompts);
    this.turnNotes = new TurnNotes(settings, clock, store, seeder);
    this.files = new WorkspaceFiles(settings, store, caps, seeder);
    index.catchUp(store, WorkspaceRules::isCoreForSearch);
    this.watcher = adapters.watchPrompts(promptChanged);
  }

  /** The settings in force. */
  public BuiltinSettings settings() {
    return settings;
  }

  /** The store (for snapshots and tests). */
  WorkspaceStore store() {
    return store;
  }

  /** The memories one by one, for the memory-admin tools. */
  public MemoryItems items() {
    return items;
  }

  /** The owners {@code agent} keeps personal files for, in no order. */
  public List<OwnerKey> owners(AgentId agent) {
    return store.owners(agent);
  }

  /** A conversation buffer on the store's storage (see {@link StoreAdapters}). */
  public ConversationBuffer conversationBuffer(int maxMessages, int messageMaxChars) {
    return adapters.conversationBuffer(maxMessages, messageMaxChars);
  }

  /** Why the store cannot serve now, or empty (see {@link WorkspaceStore#unavailable()}). */
  public java.util.Optional<String> unavailable() {
    return store.unavailable();
  }

  /** Sets who is told of memory writes (see {@link MemoryWrites}); replaces the previous one. */
  public void onMemoryWrite(MemoryWrites listener) {
    this.writes = Objects.requireNonNull(listener, "listener");
  }

  /** Tells the listener of a memory write. */
  void memoryWritten(AgentId agent, Bucket bucket, WorkspacePath path) {
    try {
      writes.written(agent, bucket, path);
    } catch (RuntimeException e) {
      log.warn("a memory-write listener failed: {}", e.toString());
    }
  }

  SizeCaps caps() {
    return caps;
  }

  /**
   * Keeps the keyword index and the prompt caches in step with one commit (under the bucket's
   * lock).
   */
  private void committed(Bucket bucket, List<Change> changes) {
    index.committed(bucket, changes, WorkspaceRules::isCoreForSearch);
    boolean promptTouched = false;
    for (Change change : changes) {
      prompts.fileChanged(bucket, change.path());
      promptTouched |= change.touchesEnabled();
    }
    if (promptTouched) {
      prompts.enabledFilesChanged(bucket);
    }
  }

  // ---------------------------------------------------------------- seeding

  /** Creates the agent's core files from the templates, once, on first use. */
  public void ensureAgent(AgentId agent) {
    seeder.ensureAgent(agent);
  }

  /**
   * Runs {@code work} on {@code bucket} in one transaction; a TEAM bucket is seeded inside the same
   * transaction, so a call that fails leaves even a never-used agent untouched.
   */
  <T> T update(Bucket bucket, Function<BucketTransaction, T> work) {
    return seeder.update(bucket, work);
  }

  /**
   * As {@link #update}, fenced against the owner's erasure ({@link WorkspaceStore#updateFenced}).
   */
  <T> T updateFenced(Bucket bucket, long seen, Function<BucketTransaction, T> work) {
    return seeder.updateFenced(bucket, seen, work);
  }

  // ---------------------------------------------------------------- prompts

  /** The enabled TEAM and GLOBAL files in sort order, under the budget; cached until a write. */
  public String systemPromptBlock(AgentId agent) {
    return prompts.systemPromptBlock(agent);
  }

  /**
   * The owner's standing memory: their enabled PERSONAL files ({@code PROFILE.md}, {@code
   * MEMORY.md} and any file they enabled) in sort order, each whole (the size caps already bound
   * the core ones), as {@code --- NAME (personal) ---} parts. A file still equal to its template is
   * left out. Cached per owner until a write touches one of their enabled files.
   */
  public String ownerPromptBlock(AgentId agent, OwnerKey owner) {
    return prompts.ownerPromptBlock(agent, owner);
  }

  // ---------------------------------------------------------------- recall

  /** The buckets {@code owner} may see in {@code agent}: GLOBAL, TEAM and their own PERSONAL. */
  public List<Bucket> visibleBuckets(AgentId agent, OwnerKey owner) {
    return recall.visibleBuckets(agent, owner);
  }

  /**
   * Keyword hits, by relevance, in the files the owner may see that no prompt already carries:
   * daily notes and other files that are not enabled, and enabled files the system prompt left out
   * for its budget. The enabled TEAM and GLOBAL files ({@link #systemPromptBlock}) and the owner's
   * enabled PERSONAL files ({@link #ownerPromptBlock}) reach the model whole on every turn, so
   * recalling their lines again would only crowd out memory; files still equal to their template
   * are never recalled. Score {@code s / (s + 1)} of the weighted BM25 score {@code s}, in (0, 1).
   * Recall writes nothing and counts nothing (a first read of a new agent seeds its core files from
   * the templates, as any read does), so a {@link RecallRequest#preview() preview} answers the same
   * and changes nothing.
   */
  public Recall prefetch(RecallRequest request) {
    return recall.prefetch(request);
  }

  /** Keyword search for the search tool. */
  public List<KeywordHit> search(List<Bucket> buckets, String query, int limit) {
    return recall.search(buckets, query, limit);
  }

  // ---------------------------------------------------------------- turns

  /**
   * Appends the turn to the daily note of its day (in the clock's zone) in the owner's PERSONAL
   * bucket, or the TEAM bucket when per-owner memory is off. Idempotent by agent, owner and turn
   * id: each entry carries a marker ({@link DailyNotes#marker}) and a turn whose marker is already
   * there is skipped, so the same turn id of two owners makes two entries.
   *
   * @return whether an entry was written
   */
  public boolean syncTurn(Turn turn) {
    return syncTurns(List.of(turn)).contains(turn.turnId());
  }

  /**
   * Appends several turns as {@link #syncTurn} does, in their order, with one transaction (one
   * durable commit) per bucket instead of one per turn, and one index refresh for all of them.
   *
   * @return the ids of the turns whose entries were written
   */
  public Set<String> syncTurns(List<Turn> turns) {
    return index.batch(turnNotes.entries(turns), () -> turnNotes.syncTurns(turns));
  }

  /**
   * Removes every PERSONAL file of {@code owner} in every agent; returns how many. The erasure is
   * counted first: a memory job that read the owner's files before it (and asks the model while
   * this runs) writes nothing after it ({@link MemoryFiles#asJobOver}), and any bucket such a job
   * created before it is listed and removed here.
   */
  public long forget(OwnerKey owner) {
    store.countErasure(owner);
    long removed = 0;
    for (Bucket bucket : store.personalBuckets(owner)) {
      removed += store.delete(bucket);
    }
    // the deleted entries still sit in the index files until their segments are merged away
    index.expungeDeletes();
    return removed;
  }

  // ---------------------------------------------------------------- files (for the tools)

  /**
   * The bucket a tool call addresses.
   *
   * @param scope {@code personal}, {@code team}, {@code global} or {@code null} for the default:
   *     PERSONAL for {@code PROFILE.md}, {@code MEMORY.md} and daily notes when there is an owner
   *     and per-owner memory is on, TEAM otherwise
   * @param path the file, or {@code null} (then the default is TEAM)
   */
  public Bucket resolve(AgentId agent, OwnerKey owner, String scope, WorkspacePath path) {
    return files.resolve(agent, owner, scope, path);
  }

  /** Files of the given buckets whose names start with {@code prefix}, by sort order. */
  public List<Listed> list(AgentId agent, List<Bucket> buckets, String prefix) {
    return files.list(agent, buckets, prefix);
  }

  /**
   * One file and its content.
   *
   * @throws ToolException NOT_FOUND if it does not exist
   */
  public ReadFile read(AgentId agent, Bucket bucket, WorkspacePath path) {
    return files.read(bucket, path);
  }

  /**
   * Replaces (or creates) a file, after the caps.
   *
   * @throws ToolException INVALID_ARGUMENT for a bad name or content
   */
  public Written write(AgentId agent, Bucket bucket, WorkspacePath path, String content) {
    Written written = files.write(bucket, path, content);
    memoryWritten(agent, bucket, path);
    return written;
  }

  /**
   * Replaces {@code oldText} by {@code newText} in the file's current content, under the file's
   * lock. Without {@code replaceAll}, {@code oldText} must occur exactly once.
   *
   * @throws ToolException NOT_FOUND if the file does not exist, CONFLICT if {@code oldText} does
   *     not occur (or occurs more than once without {@code replaceAll}); nothing is written then
   */
  public Edited edit(
      AgentId agent,
      Bucket bucket,
      WorkspacePath path,
      String oldText,
      String newText,
      boolean replaceAll) {
    Edited edited = files.edit(bucket, path, oldText, newText, replaceAll);
    memoryWritten(agent, bucket, path);
    return edited;
  }

  /**
   * Changes a file's {@code enabled} flag and/or sort order.
   *
   * @throws ToolException NOT_FOUND if the file does not exist
   */
  public FileEntry updateMeta(
      AgentId agent, Bucket bucket, WorkspacePath path, Boolean enabled, Integer sortOrder) {
    return files.updateMeta(bucket, path, enabled, sortOrder);
  }

  SizeCaps.Capped cap(WorkspacePath path, String content, String field) {
    return files.cap(path, content, field);
  }

  /** An invalid tool argument {@code field}; {@code message} names it. */
  static ToolException invalid(String field, String message) {
    return ToolException.invalidArgument(field, message);
  }

  /** Turns a path error into the tool error that names the argument. */
  public static ToolException invalidPath(String argument, InvalidWorkspacePathException e) {
    return invalid(argument, argument + " " + e.problem());
  }

  @Override
  public void close() {
    try {
      watcher.close();
    } catch (Exception e) {
      log.warn("stopping the prompt watcher failed: {}", e.toString());
    }
    try {
      index.commit();
    } catch (RuntimeException e) {
      log.warn("final commit of the keyword index failed: {}", e.toString());
    }
    index.close();
    store.close();
    adapters.close();
  }
}
