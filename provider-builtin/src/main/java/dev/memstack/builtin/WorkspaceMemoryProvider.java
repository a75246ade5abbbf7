package dev.memstack.builtin;

import dev.memstack.builtin.extraction.Dreaming;
import dev.memstack.builtin.extraction.MemoryExtraction;
import dev.memstack.builtin.extraction.MemoryJobParts;
import dev.memstack.builtin.extraction.MemoryJobSettings;
import dev.memstack.builtin.extraction.PromptTemplates;
import dev.memstack.builtin.extraction.SoulGrowth;
import dev.memstack.builtin.extraction.StructuredConsolidation;
import dev.memstack.builtin.memory.BuiltinSettings;
import dev.memstack.builtin.memory.DenseSettings;
import dev.memstack.builtin.memory.MemoryFiles;
import dev.memstack.builtin.memory.MemoryItems;
import dev.memstack.builtin.memory.WorkspaceMemory;
import dev.memstack.builtin.store.ConversationBuffer;
import dev.memstack.builtin.store.StoreSettings;
import dev.memstack.builtin.tools.ConsolidationTools;
import dev.memstack.builtin.tools.LifecycleTools;
import dev.memstack.builtin.tools.MemoryAdminTools;
import dev.memstack.builtin.tools.MemoryJobTools;
import dev.memstack.builtin.tools.WorkspaceMemoryTools;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.ProviderHealth;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolSpec;
import dev.memstack.spi.Turn;
import dev.memstack.spi.TurnRejectedException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Workspace-file memory, as the seeds' builtin provider: per agent the TEAM core files {@code
 * AGENTS.md}, {@code SOUL.md}, {@code PROFILE.md}, {@code MEMORY.md} (seeded from templates on
 * first use), per owner PERSONAL {@code PROFILE.md}, {@code MEMORY.md} and daily notes {@code
 * memory/YYYY-MM-DD.md} (config {@code per-owner}, default on), and GLOBAL files for every agent.
 * Files are plain Markdown under the instance's data directory ({@code agents/}, {@code global/});
 * a Lucene keyword index under {@code index/} is kept in step with every write and brought up to
 * date at start.
 *
 * <p>{@link #systemPromptBlock} joins the enabled TEAM and GLOBAL files ({@code --- NAME ---}),
 * cached until a write changes it; {@link #ownerPromptBlock} joins the owner's enabled PERSONAL
 * files the same way, cached per owner; {@link #prefetch} returns keyword hits in what neither
 * block carries (daily notes, files not enabled); {@link #syncTurn} appends a gist of the turn to
 * the owner's daily note, once per turn id; {@link #forget} removes the owner's PERSONAL files and
 * conversations (and counts both). The file tools are described in {@link WorkspaceMemoryTools}.
 * Configuration keys: see {@link BuiltinSettings}. Caveat: files edited by hand while the provider
 * runs are seen at the next restart. With {@code store=postgres} (the default in shared mode, see
 * {@link StoreSettings}) the files, the keyword index and the conversation buffer are rows of
 * PostgreSQL, and every host on the database sees every write.
 *
 * <p>With the host's chat model, memory maintains itself: {@link #syncTurn} also keeps the
 * conversation's recent messages ({@link ConversationBuffer}) and, past the gates, schedules a
 * post-turn extraction ({@link MemoryExtraction}); a scheduler thread runs nightly dreaming ({@link
 * Dreaming}); the tools of {@link MemoryJobTools} run both by hand. A second scheduler thread runs
 * the nightly {@link StructuredConsolidation} of {@code PROFILE.md} and {@code MEMORY.md} entries
 * ({@link ConsolidationTools} runs it by hand), and {@link SoulGrowth} rewrites an agent's {@code
 * SOUL.md} every {@code soul-update-interval} writes to its shared memory. Keys: {@link
 * MemoryJobSettings}.
 *
 * <p>The memories one by one ({@link MemoryAdminTools}, {@link Capability#MEMORY_ADMIN}): each
 * bullet of {@code PROFILE.md} and {@code MEMORY.md} and each daily-note entry, with ids, status
 * (archived and suppressed entries move to {@code history/archive.md}), optimistic locking on the
 * file's update time and a history per bucket ({@link MemoryItems}).
 */
public final class WorkspaceMemoryProvider implements MemoryProvider {

  private final String id;
  private final ProviderContext context;
  private final WorkspaceMemory memory;
  private final WorkspaceMemoryTools tools;
  private final ConversationBuffer conversations;
  private final MemoryExtraction extraction;
  private final Dreaming dreaming;
  private final MemoryJobTools jobTools;
  private final LifecycleTools lifecycleTools;
  private final StructuredConsolidation consolidation;
  private final SoulGrowth soulGrowth;
  private final ConsolidationTools consolidationTools;
  private final MemoryAdminTools adminTools;
  private final List<ToolSpec> specs;
  private final Set<Capability> capabilities;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * Opens the workspace under {@code context.dataDir()}.
   *
   * @throws java.io.UncheckedIOException if the data directory cannot be used
   */
  public WorkspaceMemoryProvider(ProviderContext context, BuiltinSettings settings) {
    this(context, settings, StoreSettings.files());
  }

  /**
   * Opens the workspace in the store {@code store} chooses.
   *
   * @throws java.io.UncheckedIOException if the data directory cannot be used
   * @throws IllegalStateException if the database of {@code store=postgres} cannot be used
   */
  public WorkspaceMemoryProvider(
      ProviderContext context, BuiltinSettings settings, StoreSettings store) {
    this.context = Objects.requireNonNull(context, "context");
    this.id = context.instanceId();
    MemoryJobSettings jobs = MemoryJobSettings.from(context.config());
    this.memory =
        WorkspaceMemory.open(
            settings,
            store,
            DenseSettings.from(context.config()),
            context.embedder(),
            context.dataDir(),
            context.clock(),
            id,
            context::systemPromptChanged);
    this.tools = new WorkspaceMemoryTools(memory, context.clock());
    MemoryFiles files = new MemoryFiles(memory);
    PromptTemplates prompts = PromptTemplates.load(settings.templatesDir());
    this.conversations =
        memory.conversationBuffer(jobs.conversationMaxMessages(), jobs.transcriptMessageChars());
    MemoryJobParts parts =
        new MemoryJobParts(
            jobs, files, prompts, context.languageModel(), context.clock(), context.coordination());
    this.extraction = new MemoryExtraction(parts, conversations);
    this.dreaming = new Dreaming(parts);
    this.jobTools = new MemoryJobTools(extraction, dreaming, files, context.languageModel());
    this.consolidation = new StructuredConsolidation(parts);
    this.consolidationTools = new ConsolidationTools(consolidation, files, context.languageModel());
    this.soulGrowth = new SoulGrowth(parts);
    memory.onMemoryWrite(soulGrowth::written);
    List<ToolSpec> all = new ArrayList<>(tools.specs());
    all.addAll(jobTools.specs());
    this.lifecycleTools = new LifecycleTools(dreaming, files, context.languageModel());
    all.addAll(lifecycleTools.specs());
    all.addAll(consolidationTools.specs());
    this.adminTools = new MemoryAdminTools(memory, dreaming.reports());
    all.addAll(adminTools.specs());
    this.specs = List.copyOf(all);
    dreaming.start();
    consolidation.start();
    EnumSet<Capability> caps =
        EnumSet.of(
            Capability.FORGET,
            Capability.SHARED_MEMORY,
            Capability.RECALLS_TURNS,
            Capability.BATCH_SYNC,
            Capability.WORKSPACE_FILES,
            Capability.MEMORY_JOBS,
            Capability.LIFECYCLE,
            Capability.REJECTS_TURNS,
            Capability.MEMORY_ADMIN);
    if (settings.perOwner()) {
      caps.add(Capability.PERSONAL_MEMORY);
      caps.add(Capability.OWNER_PROMPT);
    }
    this.capabilities = Set.copyOf(caps);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String systemPromptBlock(AgentId agent) {
    open();
    return memory.systemPromptBlock(agent);
  }

  @Override
  public String ownerPromptBlock(AgentId agent, OwnerKey owner) {
    open();
    return memory.ownerPromptBlock(agent, owner);
  }

  @Override
  public Recall prefetch(RecallRequest request) {
    open();
    return memory.prefetch(request);
  }

  @Override
  public void syncTurn(Turn turn) {
    syncTurns(List.of(turn));
  }

  /**
   * Writes the daily-note entries of all the turns with one commit per owner, then feeds each turn
   * to the conversation buffer and the extraction gates in order.
   */
  @Override
  public void syncTurns(List<Turn> turns) {
    open();
    for (Turn turn : turns) {
      if (turn.userMessage().indexOf('\u0000') >= 0
          || turn.assistantReply().indexOf('\u0000') >= 0) {
        // PostgreSQL text cannot hold it, and a file store keeps to the same rule; the host
        // refuses such turns at its boundary, so this is a turn journaled before that rule
        throw new TurnRejectedException(
            "turn " + turn.turnId() + " holds a NUL character, which builtin does not store");
      }
    }
    memory.syncTurns(turns);
    for (Turn turn : turns) {
      extraction.afterTurn(turn, conversations.append(turn));
    }
  }

  @Override
  public Set<Capability> capabilities() {
    return capabilities;
  }

  @Override
  public List<ToolSpec> tools() {
    return specs;
  }

  /**
   * Runs one tool, with the call's {@link ToolCall#actor()} as the actor of the history events its
   * writes cause ({@link MemoryItems#actingAs}).
   */
  @Override
  public String callTool(ToolCall call) {
    open();
    return MemoryItems.actingAs(call.actor(), () -> dispatch(call));
  }

  private String dispatch(ToolCall call) {
    if (adminTools.has(call.name())) {
      return adminTools.call(call);
    }
    if (lifecycleTools.has(call.name())) {
      return lifecycleTools.call(call);
    }
    if (jobTools.has(call.name())) {
      return jobTools.call(call);
    }
    if (consolidationTools.has(call.name())) {
      return consolidationTools.call(call);
    }
    return tools.call(call);
  }

  /**
   * Removes the owner's PERSONAL files in every agent and every conversation the buffer kept of
   * theirs; returns what was removed, counted in stored items: one per workspace file (daily note,
   * {@code MEMORY.md}, {@code PROFILE.md} or any other personal file) plus one per conversation, on
   * either store.
   */
  @Override
  public long forget(OwnerKey owner) {
    open();
    long files = memory.forget(owner);
    long conversationsRemoved = conversations.forget(owner);
    return files + conversationsRemoved;
  }

  @Override
  public ProviderHealth health() {
    if (closed.get()) {
      return ProviderHealth.down("closed");
    }
    if (!Files.isWritable(context.dataDir())) {
      return ProviderHealth.down("data directory is not writable: " + context.dataDir());
    }
    return memory.unavailable().map(ProviderHealth::down).orElseGet(ProviderHealth::up);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      dreaming.close();
      consolidation.close();
      extraction.close();
      soulGrowth.close();
      memory.close();
    }
  }

  private void open() {
    if (closed.get()) {
      throw new IllegalStateException("provider " + id + " is closed");
    }
  }
}
