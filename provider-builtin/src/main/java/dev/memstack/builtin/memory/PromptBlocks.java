package dev.memstack.builtin.memory;

import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.KeywordIndex;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The prompt blocks of the memory: the agent's system prompt block (enabled TEAM and GLOBAL files
 * under the budget) and each owner's block (their enabled PERSONAL files), cached until a commit
 * touches an enabled file, with the contents of enabled and core files cached beside them. A cached
 * block is also checked against the store's version of its buckets ({@link
 * WorkspaceStore#version}), so that a write made by another host on a shared store is seen by the
 * next block; a content is cached by size and update time, which a shared store changes with every
 * write. Thread-safe.
 */
final class PromptBlocks {

  private static final int MARKER_RESERVE = 400;

  private final BuiltinSettings settings;
  private final WorkspaceStore store;
  private final Templates templates;
  private final CoreFileSeeder seeder;
  private final Consumer<AgentId> promptChanged;
  private final Map<AgentId, CachedBlock> blocks = new ConcurrentHashMap<>();
  private final Map<AgentId, AtomicLong> agentGenerations = new ConcurrentHashMap<>();
  private final AtomicLong globalGeneration = new AtomicLong();

  private final Map<String, CachedContent> contents = new ConcurrentHashMap<>();

  private final Map<Bucket, OwnerBlock> ownerBlocks = new ConcurrentHashMap<>();
  private final Map<Bucket, AtomicLong> ownerGenerations = new ConcurrentHashMap<>();

  /** A built system prompt block and the keys of the files it shows whole. */
  private record CachedBlock(
      long agentGeneration,
      long globalGeneration,
      long teamVersion,
      long globalVersion,
      String block,
      Set<String> shown) {}

  /**
   * A built owner prompt block and the keys of the files it shows whole; {@code version} is the
   * store's version of the bucket ({@link WorkspaceStore#version}), which other hosts change.
   */
  private record OwnerBlock(long generation, long version, String block, Set<String> shown) {}

  private record CachedContent(long size, Instant updateTime, String content) {}

  PromptBlocks(
      BuiltinSettings settings,
      WorkspaceStore store,
      Templates templates,
      CoreFileSeeder seeder,
      Consumer<AgentId> promptChanged) {
    this.settings = settings;
    this.store = store;
    this.templates = templates;
    this.seeder = seeder;
    this.promptChanged = promptChanged;
  }

  /** Forgets the cached content of a file that a commit changed. */
  void fileChanged(Bucket bucket, WorkspacePath path) {
    contents.remove(KeywordIndex.fileKey(bucket, path));
  }

  /** Makes the blocks that show {@code bucket}'s enabled files be built again on their next use. */
  void enabledFilesChanged(Bucket bucket) {
    if (bucket.scope() == Scope.PERSONAL) {
      ownerGeneration(bucket).incrementAndGet();
    } else {
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

  /**
   * The content of an enabled file or a core file, from memory while its size and update time are
   * unchanged (they are read on every prompt build and every recall; there are few of them).
   */
  String enabledContent(Bucket bucket, FileEntry entry) {
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

  /** The enabled TEAM and GLOBAL files in sort order, under the budget; cached until a write. */
  String systemPromptBlock(AgentId agent) {
    return cachedBlock(agent).block();
  }

  /** The keys of the files that the agent's and the owner's blocks show whole. */
  Set<String> shownWhole(AgentId agent, OwnerKey owner) {
    Set<String> shown = new HashSet<>(cachedBlock(agent).shown());
    shown.addAll(cachedOwnerBlock(agent, owner).shown());
    return shown;
  }

  private CachedBlock cachedBlock(AgentId agent) {
    seeder.ensureAgent(agent);
    long agentGeneration = generation(agent).get();
    long global = globalGeneration.get();
    // read before building: a commit after this read makes the next call build again
    long teamVersion = store.version(Bucket.team(agent));
    long globalVersion = store.version(Bucket.global());
    CachedBlock cached = blocks.get(agent);
    if (cached != null
        && cached.agentGeneration() == agentGeneration
        && cached.globalGeneration() == global
        && cached.teamVersion() == teamVersion
        && cached.globalVersion() == globalVersion) {
      return cached;
    }
    Set<String> shown = new HashSet<>();
    String block = buildBlock(agent, shown);
    CachedBlock built =
        new CachedBlock(
            agentGeneration, global, teamVersion, globalVersion, block, Set.copyOf(shown));
    blocks.put(agent, built);
    return built;
  }

  /** The owner's block (see {@link WorkspaceMemory#ownerPromptBlock}); cached per owner. */
  String ownerPromptBlock(AgentId agent, OwnerKey owner) {
    return cachedOwnerBlock(agent, owner).block();
  }

  private OwnerBlock cachedOwnerBlock(AgentId agent, OwnerKey owner) {
    if (owner == null || !settings.perOwner()) {
      return new OwnerBlock(0, 0, "", Set.of());
    }
    Bucket personal = Bucket.personal(agent, owner);
    long generation = ownerGeneration(personal).get();
    long version = store.version(personal);
    OwnerBlock cached = ownerBlocks.get(personal);
    if (cached != null && cached.generation() == generation && cached.version() == version) {
      return cached;
    }
    List<Part> parts = new ArrayList<>();
    addParts(parts, personal, 0, "");
    parts.sort(Comparator.comparingInt(Part::sortOrder).thenComparing(Part::name));
    Set<String> shown = new HashSet<>();
    for (Part part : parts) {
      shown.add(part.key());
    }
    String entryMarker = budgetEntries(parts, shown);
    StringBuilder out = new StringBuilder();
    for (Part part : parts) {
      if (out.length() > 0) {
        out.append("\n\n");
      }
      out.append("--- ").append(part.name()).append(" (personal) ---\n").append(part.content());
    }
    if (!entryMarker.isEmpty()) {
      out.append(out.length() > 0 ? "\n\n" : "").append(entryMarker);
    }
    OwnerBlock built = new OwnerBlock(generation, version, out.toString(), Set.copyOf(shown));
    ownerBlocks.put(personal, built);
    return built;
  }

  /** One file of a block; {@code type} is its file name when it holds structured entries. */
  private record Part(
      String header,
      String content,
      int sortOrder,
      int scopeRank,
      String name,
      Instant updated,
      String key,
      String type) {
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
    String entryMarker = budgetEntries(parts, shownKeys);
    String block =
        fileBudget(parts, shownKeys, entryMarker.isEmpty() ? 0 : entryMarker.length() + 2);
    if (entryMarker.isEmpty()) {
      return block;
    }
    return block.isEmpty() ? entryMarker : block + "\n\n" + entryMarker;
  }

  /**
   * Applies the entry budget ({@link EntryBudget}) to the structured parts in place; a part whose
   * entries were cut is no longer shown whole (its lines may be recalled).
   *
   * @return the closing line that discloses what was left out, or {@code ""}
   */
  private String budgetEntries(List<Part> parts, Set<String> shownKeys) {
    List<Integer> at = new ArrayList<>();
    List<EntryBudget.Input> inputs = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      if (parts.get(i).type() != null) {
        at.add(i);
        inputs.add(new EntryBudget.Input(parts.get(i).type(), parts.get(i).content()));
      }
    }
    int perType = settings.systemBlockMaxEntriesPerType();
    int maxChars = settings.systemBlockMaxChars();
    if (inputs.isEmpty() || (perType <= 0 && maxChars <= 0)) {
      return "";
    }
    EntryBudget.Output output = EntryBudget.apply(inputs, perType, maxChars);
    if (output.omitted() == 0) {
      return "";
    }
    for (int j = 0; j < at.size(); j++) {
      if (output.cut().get(j)) {
        Part part = parts.get(at.get(j));
        shownKeys.remove(part.key());
        parts.set(
            at.get(j),
            new Part(
                part.header(),
                output.contents().get(j).strip(),
                part.sortOrder(),
                part.scopeRank(),
                part.name(),
                part.updated(),
                part.key(),
                part.type()));
      }
    }
    return EntryBudget.marker(output.omitted(), output.total(), perType, maxChars);
  }

  /** The parts joined under {@code system-prompt-max-chars}, less {@code reserved} characters. */
  private String fileBudget(List<Part> parts, Set<String> shownKeys, int reserved) {
    int budget = settings.systemPromptMaxChars();
    int total = joinedLength(parts);
    if (budget <= 0 || total + reserved <= budget) {
      return join(parts);
    }
    int limit = budget;
    budget = Math.max(0, budget - reserved);
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
            + limit
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
              KeywordIndex.fileKey(bucket, entry.path()),
              StructuredEntries.structured(entry.path()) ? entry.path().value() : null));
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

  /** Whether {@code content} is still the template of a core file (ignoring outer whitespace). */
  boolean isTemplate(WorkspacePath path, String content) {
    return path.atRoot()
        && WorkspaceRules.CORE_FILES.contains(path.value())
        && templates.get(path.value()).strip().equals(content.strip());
  }
}
