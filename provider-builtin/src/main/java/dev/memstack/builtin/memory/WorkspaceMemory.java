package dev.memstack.builtin.memory;

import dev.memstack.builtin.search.FileStamp;
import dev.memstack.builtin.search.KeywordHit;
import dev.memstack.builtin.search.KeywordIndex;
import dev.memstack.builtin.search.LuceneKeywordIndex;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.BucketTransaction;
import dev.memstack.builtin.workspace.Change;
import dev.memstack.builtin.workspace.FileEntry;
import dev.memstack.builtin.workspace.FileMeta;
import dev.memstack.builtin.workspace.FileSystemWorkspaceStore;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.builtin.workspace.WorkspaceStore;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The builtin provider's memory: workspace files in a {@link WorkspaceStore} with a {@link
 * KeywordIndex} kept in step by every commit. It seeds an agent's core files on first use, resolves
 * scopes, applies the size caps, builds the cached system prompt block, answers per-turn recall,
 * appends turns to daily notes and erases owners. Thread-safe.
 */
public final class WorkspaceMemory implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WorkspaceMemory.class);
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT);
  private static final int MARKER_RESERVE = 400;

  private final BuiltinSettings settings;
  private final String source;
  private final Clock clock;
  private final SizeCaps caps;
  private final Templates templates;
  private final Consumer<AgentId> promptChanged;
  private final KeywordIndex index;
  private final WorkspaceStore store;
  private final Map<AgentId, CachedBlock> blocks = new ConcurrentHashMap<>();
  private final Map<AgentId, AtomicLong> agentGenerations = new ConcurrentHashMap<>();
  private final AtomicLong globalGeneration = new AtomicLong();

  private final Map<String, CachedContent> contents = new ConcurrentHashMap<>();

  private final Map<Bucket, OwnerBlock> ownerBlocks = new ConcurrentHashMap<>();
  private final Map<Bucket, AtomicLong> ownerGenerations = new ConcurrentHashMap<>();

  /** A built system prompt block and the keys of the files it shows whole. */
  private record CachedBlock(
      long agentGeneration, long globalGeneration, String block, Set<String> shown) {}

  /** A built owner prompt block and the keys of the files it shows whole. */
  private record OwnerBlock(long generation, String block, Set<String> shown) {}

  private record CachedContent(long size, Instant updateTime, String content) {}

  /**
   * Opens the memory under {@code dataDir}: files under {@code agents/} and {@code global/}, the
   * keyword index under {@code index/}, which is brought up to date with the files first.
   *
   * @param source the provider instance id, stamped on recall items
   * @param promptChanged told when an agent's system prompt block changed ({@code null} = all)
   */
  public static WorkspaceMemory open(
      BuiltinSettings settings,
      Path dataDir,
      Clock clock,
      String source,
      Consumer<AgentId> promptChanged) {
    KeywordIndex index =
        new LuceneKeywordIndex(
            dataDir.resolve("index"), settings.snippetChars(), settings.indexCommitInterval());
    try {
      WorkspaceMemory memory =
          new WorkspaceMemory(settings, dataDir, clock, source, promptChanged, index);
      memory.catchUpIndex();
      return memory;
    } catch (RuntimeException e) {
      index.close();
      throw e;
    }
  }

  private WorkspaceMemory(
      BuiltinSettings settings,
      Path dataDir,
      Clock clock,
      String source,
      Consumer<AgentId> promptChanged,
      KeywordIndex index) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.source = Objects.requireNonNull(source, "source");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.promptChanged = Objects.requireNonNull(promptChanged, "promptChanged");
    this.caps =
        new SizeCaps(
            settings.profileMaxChars(), settings.memoryMaxChars(), settings.fileMaxBytes());
    this.templates = Templates.load(settings.templatesDir());
    this.index = index;
    this.store =
        new FileSystemWorkspaceStore(
            dataDir, clock, WorkspaceRules::metaForNewFile, this::committed);
  }

  /** The settings in force. */
  public BuiltinSettings settings() {
    return settings;
  }

  /** The store (for snapshots and tests). */
  WorkspaceStore store() {
    return store;
  }

  SizeCaps caps() {
    return caps;
  }

  // ---------------------------------------------------------------- keeping the index in step

  private void committed(Bucket bucket, List<Change> changes) {
    boolean promptTouched = false;
    for (Change change : changes) {
      if (change.after() == null) {
        index.remove(bucket, change.path());
      } else if (change.content() != null) {
        FileEntry after = change.after();
        index.replace(
            bucket,
            change.path(),
            change.content(),
            stamp(after),
            after.updateTime(),
            WorkspaceRules.isCoreForSearch(change.path()));
      }
      contents.remove(KeywordIndex.fileKey(bucket, change.path()));
      promptTouched |= change.touchesEnabled();
    }
    index.refresh();
    if (promptTouched && bucket.scope() == Scope.PERSONAL) {
      ownerGeneration(bucket).incrementAndGet();
    } else if (promptTouched) {
      invalidate(bucket);
    }
  }

  private void invalidate(Bucket bucket) {
    if (bucket.scope() == Scope.GLOBAL) {
      globalGeneration.incrementAndGet();
      promptChanged.accept(null);
    } else {
      generation(bucket.agent()).incrementAndGet();
      promptChanged.accept(bucket.agent());
    }
  }

  private AtomicLong ownerGeneration(Bucket personal) {
    return ownerGenerations.computeIfAbsent(personal, b -> new AtomicLong());
  }

  private AtomicLong generation(AgentId agent) {
    return agentGenerations.computeIfAbsent(agent, a -> new AtomicLong());
  }

  private static FileStamp stamp(FileEntry entry) {
    return new FileStamp(entry.size(), entry.updateTime().toEpochMilli());
  }

  private double weight(WorkspacePath path) {
    return WorkspaceRules.isCoreForSearch(path) ? settings.coreFileWeight() : 1.0;
  }

  /**
   * The content of an enabled file or a core file, from memory while its size and update time are
   * unchanged (they are read on every prompt build and every recall; there are few of them).
   */
  private String enabledContent(Bucket bucket, FileEntry entry) {
    String key = KeywordIndex.fileKey(bucket, entry.path());
    CachedContent cached = contents.get(key);
    if (cached != null
        && cached.size() == entry.size()
        && cached.updateTime().equals(entry.updateTime())) {
      return cached.content();
    }
    String content = store.read(bucket, entry.path()).map(String::strip).orElse("");
    contents.put(key, new CachedContent(entry.size(), entry.updateTime(), content));
    return content;
  }

  /** Re-indexes files that changed since the index was last committed, drops files now gone. */
  private void catchUpIndex() {
    long started = System.nanoTime();
    Map<String, FileStamp> indexed = new java.util.HashMap<>(index.stamps());
    int reindexed = 0;
    for (Bucket bucket : store.buckets()) {
      for (FileEntry entry : store.list(bucket)) {
        String key = KeywordIndex.fileKey(bucket, entry.path());
        FileStamp known = indexed.remove(key);
        if (!stamp(entry).equals(known)) {
          Optional<String> content = store.read(bucket, entry.path());
          if (content.isPresent()) {
            index.replace(
                bucket,
                entry.path(),
                content.get(),
                stamp(entry),
                entry.updateTime(),
                WorkspaceRules.isCoreForSearch(entry.path()));
            reindexed++;
          }
        }
      }
    }
    for (String gone : indexed.keySet()) {
      index.removeByKey(gone);
    }
    if (reindexed > 0 || !indexed.isEmpty()) {
      index.refresh();
      index.commit();
      log.info(
          "keyword index brought up to date: {} files re-indexed, {} removed, in {} ms",
          reindexed,
          indexed.size(),
          (System.nanoTime() - started) / 1_000_000);
    }
  }

  // ---------------------------------------------------------------- seeding

  /** Creates the agent's core files from the templates, once, on first use. */
  public void ensureAgent(AgentId agent) {
    Bucket team = Bucket.team(agent);
    if (store.seeded(team)) {
      return;
    }
    store.update(
        team,
        tx -> {
          seed(tx);
          return null;
        });
  }

  private void seed(BucketTransaction tx) {
    if (tx.bucket().scope() != Scope.TEAM || tx.seeded()) {
      return;
    }
    for (String name : WorkspaceRules.CORE_FILES) {
      WorkspacePath path = WorkspacePath.of(name);
      if (tx.entry(path).isEmpty()) {
        tx.write(path, templates.get(name), WorkspaceRules.metaForNewFile(path));
      }
    }
    tx.markSeeded();
  }

  /**
   * Runs {@code work} on {@code bucket} in one transaction; a TEAM bucket is seeded inside the same
   * transaction, so a call that fails leaves even a never-used agent untouched.
   */
  <T> T update(Bucket bucket, Function<BucketTransaction, T> work) {
    return store.update(
        bucket,
        tx -> {
          seed(tx);
          return work.apply(tx);
        });
  }

  // ---------------------------------------------------------------- system prompt

  /** The enabled TEAM and GLOBAL files in sort order, under the budget; cached until a write. */
  public String systemPromptBlock(AgentId agent) {
    return cachedBlock(agent).block();
  }

  private CachedBlock cachedBlock(AgentId agent) {
    ensureAgent(agent);
    long agentGeneration = generation(agent).get();
    long global = globalGeneration.get();
    CachedBlock cached = blocks.get(agent);
    if (cached != null
        && cached.agentGeneration() == agentGeneration
        && cached.globalGeneration() == global) {
      return cached;
    }
    Set<String> shown = new HashSet<>();
    String block = buildBlock(agent, shown);
    CachedBlock built = new CachedBlock(agentGeneration, global, block, Set.copyOf(shown));
    blocks.put(agent, built);
    return built;
  }

  /**
   * The owner's standing memory: their enabled PERSONAL files ({@code PROFILE.md}, {@code
   * MEMORY.md} and any file they enabled) in sort order, each whole (the size caps already bound
   * the core ones), as {@code --- NAME (personal) ---} parts. A file still equal to its template is
   * left out. Cached per owner until a write touches one of their enabled files.
   */
  public String ownerPromptBlock(AgentId agent, OwnerKey owner) {
    return cachedOwnerBlock(agent, owner).block();
  }

  private OwnerBlock cachedOwnerBlock(AgentId agent, OwnerKey owner) {
    if (owner == null || !settings.perOwner()) {
      return new OwnerBlock(0, "", Set.of());
    }
    Bucket personal = Bucket.personal(agent, owner);
    long generation = ownerGeneration(personal).get();
    OwnerBlock cached = ownerBlocks.get(personal);
    if (cached != null && cached.generation() == generation) {
      return cached;
    }
    List<Part> parts = new ArrayList<>();
    addParts(parts, personal, 0, "");
    parts.sort(Comparator.comparingInt(Part::sortOrder).thenComparing(Part::name));
    StringBuilder out = new StringBuilder();
    Set<String> shown = new HashSet<>();
    for (Part part : parts) {
      if (out.length() > 0) {
        out.append("\n\n");
      }
      out.append("--- ").append(part.name()).append(" (personal) ---\n").append(part.content());
      shown.add(part.key());
    }
    OwnerBlock built = new OwnerBlock(generation, out.toString(), Set.copyOf(shown));
    ownerBlocks.put(personal, built);
    return built;
  }

  private record Part(
      String header,
      String content,
      int sortOrder,
      int scopeRank,
      String name,
      Instant updated,
      String key) {
    int length() {
      return header.length() + 1 + content.length();
    }

    String render() {
      return header + "\n" + content;
    }
  }

  private String buildBlock(AgentId agent, Set<String> shownKeys) {
    List<Part> parts = new ArrayList<>();
    addParts(parts, Bucket.global(), 0, "global/");
    addParts(parts, Bucket.team(agent), 1, "");
    for (Part part : parts) {
      shownKeys.add(part.key());
    }
    parts.sort(
        Comparator.comparingInt(Part::sortOrder)
            .thenComparingInt(Part::scopeRank)
            .thenComparing(Part::name));
    int budget = settings.systemPromptMaxChars();
    int total = joinedLength(parts);
    if (budget <= 0 || total <= budget) {
      return join(parts);
    }
    // Over the budget: keep the most recently updated files that fit, leave out the rest.
    List<Part> byRecency = new ArrayList<>(parts);
    byRecency.sort(
        Comparator.comparing(Part::updated)
            .reversed()
            .thenComparingInt(Part::sortOrder)
            .thenComparing(Part::name));
    int room = Math.max(0, budget - MARKER_RESERVE);
    Set<Part> kept = new HashSet<>();
    int used = 0;
    for (Part part : byRecency) {
      int cost = part.length() + (kept.isEmpty() ? 0 : 2);
      if (used + cost <= room) {
        kept.add(part);
        used += cost;
      }
    }
    List<Part> shown = new ArrayList<>();
    List<String> omittedNames = new ArrayList<>();
    int omittedChars = 0;
    for (Part part : parts) {
      if (kept.contains(part)) {
        shown.add(part);
      } else {
        shownKeys.remove(part.key()); // left out of the prompt: recalled by relevance instead
        omittedNames.add(part.name());
        omittedChars += part.length();
      }
    }
    String names =
        omittedNames.size() <= 5
            ? String.join(", ", omittedNames)
            : String.join(", ", omittedNames.subList(0, 5))
                + " and "
                + (omittedNames.size() - 5)
                + " more";
    String marker =
        "[memory: "
            + omittedNames.size()
            + (omittedNames.size() == 1 ? " workspace file" : " workspace files")
            + " ("
            + omittedChars
            + " characters) left out to stay within "
            + budget
            + " characters, least recently updated first: "
            + names
            + "]";
    String body = join(shown);
    return body.isEmpty() ? marker : body + "\n\n" + marker;
  }

  private void addParts(List<Part> parts, Bucket bucket, int scopeRank, String prefix) {
    for (FileEntry entry : store.list(bucket)) {
      if (!entry.enabled()) {
        continue;
      }
      String content = enabledContent(bucket, entry);
      if (content.isEmpty()
          || (bucket.scope() == Scope.PERSONAL && isTemplate(entry.path(), content))) {
        continue;
      }
      String name = prefix + entry.path().value();
      parts.add(
          new Part(
              "--- " + name + " ---",
              content,
              entry.sortOrder(),
              scopeRank,
              name,
              entry.updateTime(),
              KeywordIndex.fileKey(bucket, entry.path())));
    }
  }

  private static int joinedLength(List<Part> parts) {
    int total = 0;
    for (Part part : parts) {
      total += part.length();
    }
    return total + Math.max(0, parts.size() - 1) * 2;
  }

  private static String join(List<Part> parts) {
    StringBuilder out = new StringBuilder();
    for (Part part : parts) {
      if (out.length() > 0) {
        out.append("\n\n");
      }
      out.append(part.render());
    }
    return out.toString();
  }

  // ---------------------------------------------------------------- recall

  /** The buckets {@code owner} may see in {@code agent}: GLOBAL, TEAM and their own PERSONAL. */
  public List<Bucket> visibleBuckets(AgentId agent, OwnerKey owner) {
    List<Bucket> buckets = new ArrayList<>(List.of(Bucket.team(agent), Bucket.global()));
    if (owner != null && settings.perOwner()) {
      buckets.add(0, Bucket.personal(agent, owner));
    }
    return buckets;
  }

  /**
   * Keyword hits, by relevance, in the files the owner may see that no prompt already carries:
   * daily notes and other files that are not enabled, and enabled files the system prompt left out
   * for its budget. The enabled TEAM and GLOBAL files ({@link #systemPromptBlock}) and the owner's
   * enabled PERSONAL files ({@link #ownerPromptBlock}) reach the model whole on every turn, so
   * recalling their lines again would only crowd out memory; files still equal to their template
   * are never recalled. Score {@code s / (s + 1)} of the weighted BM25 score {@code s}, in (0, 1).
   */
  public Recall prefetch(RecallRequest request) {
    if (request.query().isBlank()) {
      return Recall.empty();
    }
    OwnerKey owner = request.owner();
    Set<String> excluded = new HashSet<>(cachedBlock(request.agent()).shown());
    excluded.addAll(cachedOwnerBlock(request.agent(), owner).shown());
    List<Bucket> buckets = visibleBuckets(request.agent(), owner);
    for (Bucket bucket : buckets) {
      for (String name : WorkspaceRules.CORE_FILES) {
        WorkspacePath path = WorkspacePath.of(name);
        Optional<FileEntry> entry = store.entry(bucket, path);
        if (entry.isPresent() && isTemplate(path, enabledContent(bucket, entry.get()))) {
          excluded.add(KeywordIndex.fileKey(bucket, path));
        }
      }
    }
    List<RecallItem> items = new ArrayList<>();
    List<KeywordHit> hits =
        index.search(
            buckets,
            request.query(),
            request.limit(),
            settings.searchMaxFiles(),
            settings.coreFileWeight(),
            excluded);
    for (KeywordHit hit : hits) {
      if (items.size() < request.limit()
          && request.maySee(hit.bucket().scope(), hit.bucket().owner())) {
        items.add(toItem(hit));
      }
    }
    items.sort(Comparator.comparingDouble(RecallItem::score).reversed());
    return Recall.of(items);
  }

  /** Whether {@code content} is still the template of a core file (ignoring outer whitespace). */
  private boolean isTemplate(WorkspacePath path, String content) {
    return path.atRoot()
        && WorkspaceRules.CORE_FILES.contains(path.value())
        && templates.get(path.value()).strip().equals(content.strip());
  }

  private RecallItem toItem(KeywordHit hit) {
    String name = displayName(hit.bucket(), hit.path());
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put("kind", "keyword");
    metadata.put("file", hit.path().value());
    metadata.put("scope", hit.bucket().scopeName());
    metadata.put("line", Integer.toString(hit.line()));
    metadata.put("snippet", hit.snippet());
    metadata.put("keywordScore", String.format(Locale.ROOT, "%.4f", hit.score()));
    metadata.put("weight", Double.toString(weight(hit.path())));
    return new RecallItem(
        name + " (line " + hit.line() + "):\n" + hit.text(),
        hit.score() / (hit.score() + 1.0),
        hit.bucket().scope(),
        hit.bucket().owner(),
        source,
        entryTime(hit),
        metadata);
  }

  private static final java.util.regex.Pattern ENTRY_TIME =
      java.util.regex.Pattern.compile("^### (\\d{2}):(\\d{2}) ");

  /**
   * When the recalled text was said: a daily-note entry's own time (the note's day and the entry's
   * {@code ### HH:MM}, in the clock's zone), otherwise the file's update time.
   */
  private Instant entryTime(KeywordHit hit) {
    LocalDate day = hit.path().dailyNoteDate();
    if (day != null) {
      java.util.regex.Matcher time = ENTRY_TIME.matcher(hit.text());
      if (time.find()) {
        int hour = Integer.parseInt(time.group(1));
        int minute = Integer.parseInt(time.group(2));
        if (hour < 24 && minute < 60) {
          return day.atTime(hour, minute).atZone(clock.getZone()).toInstant();
        }
      }
      return day.atStartOfDay(clock.getZone()).toInstant();
    }
    return hit.updateTime();
  }

  private static String displayName(Bucket bucket, WorkspacePath path) {
    return switch (bucket.scope()) {
      case GLOBAL -> "global/" + path.value();
      case TEAM -> path.value();
      case PERSONAL -> path.value() + " (personal)";
    };
  }

  /** Keyword search for the search tool. */
  public List<KeywordHit> search(List<Bucket> buckets, String query, int limit) {
    return index.search(
        buckets, query, limit, settings.searchMaxFiles(), settings.coreFileWeight(), Set.of());
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
   * durable commit and one index refresh) per bucket instead of one per turn.
   *
   * @return the ids of the turns whose entries were written
   */
  public Set<String> syncTurns(List<Turn> turns) {
    Map<Bucket, List<Turn>> byBucket = new LinkedHashMap<>();
    for (Turn turn : turns) {
      if (settings.skipCronTurns() && turn.triggerSource() == TriggerSource.CRON) {
        continue;
      }
      ensureAgent(turn.agent());
      Bucket bucket =
          settings.perOwner()
              ? Bucket.personal(turn.agent(), turn.owner())
              : Bucket.team(turn.agent());
      byBucket.computeIfAbsent(bucket, b -> new ArrayList<>()).add(turn);
    }
    Set<String> written = new HashSet<>();
    byBucket.forEach(
        (bucket, ofBucket) ->
            written.addAll(
                store.update(
                    bucket,
                    tx -> {
                      Set<String> done = new HashSet<>();
                      for (Turn turn : ofBucket) {
                        if (append(tx, bucket, turn)) {
                          done.add(turn.turnId());
                        }
                      }
                      return done;
                    })));
    return written;
  }

  private boolean append(BucketTransaction tx, Bucket bucket, Turn turn) {
    ZonedDateTime time = turn.time().atZone(clock.getZone());
    LocalDate date = time.toLocalDate();
    WorkspacePath note = WorkspacePath.dailyNote(date);
    String marker = DailyNotes.marker(bucket, turn);
    Optional<String> current = tx.read(note);
    if (current.isPresent() && DailyNotes.holds(current.get(), bucket, turn)) {
      return false;
    }
    String base = current.orElse("# " + date + "\n");
    String entry =
        "### "
            + TIME.format(time)
            + " · "
            + turn.triggerSource().wireName()
            + " · conversation "
            + DailyNotes.gist(turn.conversationId(), 64)
            + " "
            + marker
            + "\n**User:** "
            + DailyNotes.gist(turn.userMessage(), settings.turnGistChars())
            + (turn.assistantReply().isBlank()
                ? "" // nothing was answered: no empty line to recall
                : "\n**Assistant:** "
                    + DailyNotes.gist(turn.assistantReply(), settings.turnGistChars()))
            + "\n";
    String next = (base.endsWith("\n") ? base : base + "\n") + "\n" + entry;
    if (next.getBytes(StandardCharsets.UTF_8).length > settings.fileMaxBytes()) {
      log.warn(
          "daily note {} of {} is full ({} bytes); turn {} is not written",
          note,
          bucket,
          settings.fileMaxBytes(),
          turn.turnId());
      return false;
    }
    tx.write(note, next, WorkspaceRules.metaForNewFile(note));
    return true;
  }

  /** Removes every PERSONAL file of {@code owner} in every agent; returns how many. */
  public long forget(OwnerKey owner) {
    long removed = 0;
    for (Bucket bucket : store.personalBuckets(owner)) {
      removed += store.delete(bucket);
    }
    // the deleted entries still sit in the index files until their segments are merged away
    index.expungeDeletes();
    return removed;
  }

  // ---------------------------------------------------------------- files (for the tools)

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
   * The bucket a tool call addresses.
   *
   * @param scope {@code personal}, {@code team}, {@code global} or {@code null} for the default:
   *     PERSONAL for {@code PROFILE.md}, {@code MEMORY.md} and daily notes when there is an owner
   *     and per-owner memory is on, TEAM otherwise
   * @param path the file, or {@code null} (then the default is TEAM)
   */
  public Bucket resolve(AgentId agent, OwnerKey owner, String scope, WorkspacePath path) {
    if (scope == null) {
      boolean personal =
          owner != null
              && settings.perOwner()
              && path != null
              && WorkspaceRules.isPersonalKind(path);
      return personal ? Bucket.personal(agent, owner) : Bucket.team(agent);
    }
    return switch (scope.toLowerCase(Locale.ROOT)) {
      case "personal" -> {
        if (owner == null) {
          throw invalid("scope", "scope 'personal' needs an ownerKey");
        }
        if (!settings.perOwner()) {
          throw invalid("scope", "scope 'personal' is not available: per-owner memory is off");
        }
        yield Bucket.personal(agent, owner);
      }
      case "team" -> Bucket.team(agent);
      case "global" -> Bucket.global();
      default ->
          throw invalid(
              "scope", "scope must be one of personal, team, global; got '" + scope + "'");
    };
  }

  /** Files of the given buckets whose names start with {@code prefix}, by sort order. */
  public List<Listed> list(AgentId agent, List<Bucket> buckets, String prefix) {
    ensureAgent(agent);
    List<Listed> listed = new ArrayList<>();
    for (Bucket bucket : buckets) {
      for (FileEntry entry : store.list(bucket)) {
        if (entry.path().startsWith(prefix)) {
          listed.add(new Listed(bucket, entry));
        }
      }
    }
    listed.sort(
        Comparator.comparingInt((Listed l) -> l.entry().sortOrder())
            .thenComparingInt(l -> l.bucket().scope().ordinal())
            .thenComparing(l -> l.entry().path()));
    return listed;
  }

  /**
   * One file and its content.
   *
   * @throws ToolException NOT_FOUND if it does not exist
   */
  public ReadFile read(AgentId agent, Bucket bucket, WorkspacePath path) {
    store.checkPath(bucket, path);
    if (bucket.scope() == Scope.TEAM && !store.seeded(bucket)) {
      return update(
          bucket,
          tx ->
              new ReadFile(
                  bucket,
                  tx.entry(path).orElseThrow(() -> notFound(bucket, path)),
                  tx.read(path).orElseThrow(() -> notFound(bucket, path))));
    }
    FileEntry entry = store.entry(bucket, path).orElseThrow(() -> notFound(bucket, path));
    String content = store.read(bucket, path).orElseThrow(() -> notFound(bucket, path));
    return new ReadFile(bucket, entry, content);
  }

  /**
   * Replaces (or creates) a file, after the caps.
   *
   * @throws ToolException INVALID_ARGUMENT for a bad name or content
   */
  public Written write(AgentId agent, Bucket bucket, WorkspacePath path, String content) {
    checkContent(content, "content");
    SizeCaps.Capped capped = cap(path, content, "content");
    store.checkPath(bucket, path);
    return update(
        bucket,
        tx -> {
          boolean created = tx.entry(path).isEmpty();
          tx.write(path, capped.content(), WorkspaceRules.metaForNewFile(path));
          FileEntry entry = tx.entry(path).orElseThrow();
          return new Written(
              bucket,
              entry,
              created,
              capped.content().getBytes(StandardCharsets.UTF_8).length,
              capped);
        });
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
    if (oldText == null || oldText.isEmpty()) {
      throw invalid("oldText", "oldText is required and must not be empty");
    }
    checkContent(oldText, "oldText");
    checkContent(newText, "newText");
    store.checkPath(bucket, path);
    return update(
        bucket,
        tx -> {
          String content = tx.read(path).orElseThrow(() -> notFound(bucket, path));
          int count = occurrences(content, oldText);
          if (count == 0) {
            throw new ToolException(
                ToolException.Kind.CONFLICT,
                "oldText was not found in "
                    + bucket.scopeName()
                    + " file "
                    + path
                    + "; read the file and retry with its current text");
          }
          if (count > 1 && !replaceAll) {
            throw new ToolException(
                ToolException.Kind.CONFLICT,
                "oldText occurs "
                    + count
                    + " times in "
                    + path
                    + "; include more surrounding text to make it unique, or set replaceAll");
          }
          String next;
          if (replaceAll) {
            next = content.replace(oldText, newText);
          } else {
            int at = content.indexOf(oldText);
            next = content.substring(0, at) + newText + content.substring(at + oldText.length());
          }
          SizeCaps.Capped capped = cap(path, next, "newText");
          tx.write(path, capped.content(), WorkspaceRules.metaForNewFile(path));
          return new Edited(
              bucket, tx.entry(path).orElseThrow(), replaceAll ? count : 1, capped.truncated());
        });
  }

  /**
   * Changes a file's {@code enabled} flag and/or sort order.
   *
   * @throws ToolException NOT_FOUND if the file does not exist
   */
  public FileEntry updateMeta(
      AgentId agent, Bucket bucket, WorkspacePath path, Boolean enabled, Integer sortOrder) {
    store.checkPath(bucket, path);
    return update(
        bucket,
        tx -> {
          FileEntry entry = tx.entry(path).orElseThrow(() -> notFound(bucket, path));
          FileMeta meta =
              new FileMeta(
                  enabled != null ? enabled : entry.enabled(),
                  sortOrder != null ? sortOrder : entry.sortOrder());
          if (meta.enabled() == entry.enabled() && meta.sortOrder() == entry.sortOrder()) {
            return entry;
          }
          tx.setMeta(path, meta);
          return tx.entry(path).orElseThrow();
        });
  }

  SizeCaps.Capped cap(WorkspacePath path, String content, String field) {
    try {
      return caps.apply(path, content);
    } catch (IllegalArgumentException e) {
      throw invalid(field, e.getMessage());
    }
  }

  static void checkContent(String text, String argument) {
    if (text == null) {
      throw invalid(argument, argument + " is required");
    }
    if (text.indexOf('\0') >= 0) {
      throw invalid(argument, argument + " must not contain NUL characters");
    }
  }

  private static int occurrences(String text, String part) {
    int count = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
      count++;
    }
    return count;
  }

  /** An invalid tool argument {@code field}; {@code message} names it. */
  static ToolException invalid(String field, String message) {
    return ToolException.invalidArgument(field, message);
  }

  private static ToolException notFound(Bucket bucket, WorkspacePath path) {
    String hint =
        bucket.scope() == Scope.PERSONAL
            ? "; the owner has no personal copy yet: write it, or read it with scope 'team'"
            : "";
    return new ToolException(
        ToolException.Kind.NOT_FOUND,
        bucket.scopeName() + " file " + path + " does not exist" + hint);
  }

  /** Turns a path error into the tool error that names the argument. */
  public static ToolException invalidPath(String argument, InvalidWorkspacePathException e) {
    return invalid(argument, argument + " " + e.problem());
  }

  @Override
  public void close() {
    try {
      index.commit();
    } catch (RuntimeException e) {
      log.warn("final commit of the keyword index failed: {}", e.toString());
    }
    index.close();
    store.close();
  }
}
