package dev.memstack.vector;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderHealth;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.RecallVector;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.spi.Turn;
import dev.memstack.support.ConsolidationSettings;
import dev.memstack.support.Require;
import dev.memstack.vector.consolidation.TypedConsolidation;
import dev.memstack.vector.contradictions.Contradiction;
import dev.memstack.vector.contradictions.ContradictionInbox;
import dev.memstack.vector.contradictions.ContradictionQueue;
import dev.memstack.vector.facts.FactConsolidator;
import dev.memstack.vector.facts.FactSettings;
import dev.memstack.vector.lifecycle.DecayJob;
import dev.memstack.vector.lifecycle.DecayScheduler;
import dev.memstack.vector.lifecycle.LifecycleSettings;
import dev.memstack.vector.lifecycle.MergeCandidates;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import dev.memstack.vector.store.Trust;
import dev.memstack.vector.types.MemoryTypes;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * Semantic recall per owner on a {@link MemoryVectorStore} (embedded Lucene by default, pgvector in
 * production). {@link #syncTurn} stores the user message, or the user message and the reply, as
 * PERSONAL {@code RAW} records (long texts in chunks; text dated and marked with who said it; ids
 * derived from the turn id, so a redelivered turn stores nothing new). {@link #prefetch} ranks the
 * records the owner may see (their PERSONAL records of the agent, the agent's TEAM records, GLOBAL
 * records; ACTIVE only) by fusing vector and BM25 ranks with a mild recency factor, the record's
 * lifecycle weight and the owner's own feedback count ({@link RecallRanker}); each item carries its
 * id, type, status and ranking signals in its metadata, and its score lies in [0, 1] (relative
 * relevance within this answer's ranking, 1 for an item ranked first by both searches, brand new,
 * of full weight and with the most feedback; scores of different queries do not compare). {@code
 * prefetch} writes nothing: being shown is not evidence of being useful, so a {@link
 * RecallRequest#preview() preview} is honoured as it stands, with the same answer. {@link
 * #feedback} and {@link #wrong} are the only signals recall learns from: counts per owner and
 * record, kept by the store apart from the records, with an effect bounded to near-ties; {@link
 * #wrong} lowers the owner's trust and suppresses for them a record marked wrong often enough
 * ({@link VectorTrust}, {@link TrustSettings}); each item's {@code signal.trust} is the owner's
 * trust in it, in (−1, 1), which the host adds to its ranking as one bounded adjustment. Tools:
 * {@code remember}, {@code recall}, {@code list_memories}, {@code update_memory_status}, {@code
 * delete_memory}, the admin tools ({@link MemoryAdminTools}), the memory types and counts ({@link
 * TypeTools}) and {@code run_structured_consolidation} ({@link ConsolidationTool}). The system
 * prompt block is always empty: shared memory is recalled by relevance, not pinned into prompts.
 * With a chat model, each new turn also yields typed facts ({@link FactConsolidator}) on a
 * provider-owned maintenance thread, which also runs the nightly, purely time-based decay ({@link
 * DecayScheduler}) and the nightly structured consolidation of the typed memories ({@link
 * TypedConsolidation}); {@code find_merge_candidates} reports strongly overlapping records.
 * Configuration keys: see {@link VectorSettings}, {@link FactSettings}, {@link LifecycleSettings},
 * {@link TrustSettings} and {@link ConsolidationSettings}; store keys are read by the store.
 */
public final class VectorMemoryProvider implements MemoryProvider {

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(VectorMemoryProvider.class);

  static final Set<Capability> CAPABILITIES =
      Set.of(
          Capability.FORGET,
          Capability.PERSONAL_MEMORY,
          Capability.SHARED_MEMORY,
          Capability.RECALLS_TURNS,
          Capability.BATCH_SYNC,
          Capability.FEEDBACK,
          Capability.MEMORY_ADMIN,
          Capability.TRUST,
          Capability.CONTRADICTIONS);

  private final String id;
  private final String storeName;
  private final MemoryVectorStore store;
  private final StoreEmbedder embedder;
  private final VectorSettings settings;
  private final Clock clock;
  private final RecallRanker ranker;
  private final VectorTrust trust;
  private final VectorMemoryTools tools;
  private final LifecycleSettings lifecycle;
  private final ScheduledExecutorService maintenance;
  private final FactConsolidator facts;
  private final DecayScheduler decay;
  private final ConversationContexts contexts;
  private final ContradictionInbox contradictions;
  private final TypedConsolidation consolidation;
  private final ToolParts parts;
  private volatile boolean closed;
  private volatile String lastFailure;

  VectorMemoryProvider(
      String id,
      String storeName,
      MemoryVectorStore store,
      StoreEmbedder embedder,
      VectorSettings settings,
      Clock clock,
      LanguageModel model,
      FactSettings factSettings,
      LifecycleSettings lifecycle,
      TrustSettings trustSettings,
      Coordination coordination,
      MemoryTypes types,
      ContradictionQueue contradictions,
      ConsolidationSettings consolidationSettings) {
    this.id = Objects.requireNonNull(id, "id");
    this.contradictions =
        new ContradictionInbox(store, contradictions, settings.contradictionCheckEnabled());
    this.consolidation =
        new TypedConsolidation(
            new TypedConsolidation.Parts(
                store,
                model,
                types,
                this.contradictions,
                consolidationSettings,
                factSettings.modelTimeout(),
                settings.chunkSize(),
                clock,
                coordination));
    this.storeName = storeName;
    this.store = Objects.requireNonNull(store, "store");
    this.embedder = embedder;
    this.settings = settings;
    this.clock = clock;
    this.lifecycle = Objects.requireNonNull(lifecycle, "lifecycle");
    this.ranker = new RecallRanker(store, settings, lifecycle.enabled(), trustSettings.halfLife());
    this.trust = new VectorTrust(store, trustSettings, clock);
    this.parts =
        new ToolParts(
            trust,
            store,
            embedder,
            settings,
            lifecycle,
            new MergeCandidates(store, embedder),
            Objects.requireNonNull(types, "types"),
            this.contradictions,
            consolidation);
    this.tools = new VectorMemoryTools(this);
    this.maintenance =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "memstack-vector-maintenance-" + id);
              t.setDaemon(true);
              return t;
            });
    this.facts =
        new FactConsolidator(store, embedder, model, factSettings, clock, maintenance, coordination)
            .withContradictions(this.contradictions);
    this.contexts = new ConversationContexts(settings.contextChars());
    if (lifecycle.enabled()) {
      this.decay = new DecayScheduler(new DecayJob(store, clock), clock, lifecycle, coordination);
      this.decay.start(maintenance);
    } else {
      this.decay = null;
    }
    this.consolidation.start(maintenance);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public Set<Capability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public String systemPromptBlock(AgentId agent) {
    checkOpen();
    return "";
  }

  @Override
  public Recall prefetch(RecallRequest request) {
    checkOpen();
    if (request.query().isBlank()) {
      return Recall.empty();
    }
    int limit = Math.min(request.limit(), settings.topK());
    Filter.Expression filter =
        MemoryFilters.and(
            MemoryFilters.visibleTo(request.agent(), request.owner()),
            MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name()));
    List<RecallRanker.Ranked> ranked =
        guarded(() -> rank(request.query(), filter, request.owner(), limit));
    Map<String, float[]> vectors = request.vectors() ? vectorsOf(ranked) : Map.of();
    Map<String, Contradiction> disputed =
        contradictions.marks(ranked.stream().map(r -> r.document().getId()).toList());
    List<RecallItem> items = new ArrayList<>(ranked.size());
    for (RecallRanker.Ranked r : ranked) {
      RecallItem item = item(r);
      Contradiction c = disputed.get(r.document().getId());
      if (c != null) {
        item = ContradictionTools.marked(item, c, pending(c)); // one truth, and what disputes it
      }
      float[] vector = vectors.get(r.document().getId());
      items.add(
          vector == null ? item : item.withVector(new RecallVector(embedder.modelId(), vector)));
    }
    return Recall.of(items); // records nothing: being shown is not evidence of being useful
  }

  /**
   * The stored vectors of the ranked records, handed over with the items so that the host can score
   * them beside other providers' items without embedding them again; none when the store cannot
   * read them (then the items go without).
   */
  private Map<String, float[]> vectorsOf(List<RecallRanker.Ranked> ranked) {
    if (ranked.isEmpty()) {
      return Map.of();
    }
    List<String> ids = new ArrayList<>(ranked.size());
    for (RecallRanker.Ranked r : ranked) {
      ids.add(r.document().getId());
    }
    try {
      return store.vectors(ids);
    } catch (RuntimeException e) {
      log.warn("Could not read the vectors of {} recalled records: {}", ids.size(), e.toString());
      return Map.of();
    }
  }

  /** Ranks without feedback (the tools' recall). */
  List<RecallRanker.Ranked> rank(String query, Filter.Expression filter, int limit) {
    return rank(query, filter, null, limit);
  }

  /**
   * @param owner whose feedback orders near-ties, or {@code null}; {@code filter} must match only
   *     records this owner may see
   */
  List<RecallRanker.Ranked> rank(
      String query, Filter.Expression filter, OwnerKey owner, int limit) {
    // the keyword search first: the query's embedding may still be under way for another caller
    return ranker.rank(
        () -> embedder.embedQuery(query), query, filter, owner, limit, clock.instant());
  }

  /**
   * Adds one to the owner's feedback count of each recalled record among {@code ids} that exists
   * and that the owner may see ({@link #visible}: their own PERSONAL records of the agent, the
   * agent's TEAM records, GLOBAL records; any status), and raises the owner's trust in it ({@link
   * VectorTrust}); other ids are ignored, and an id given twice in one call counts once. The counts
   * belong to the owner alone, also on shared records, and raise a record's score by at most
   * {@value RecallRanker#FEEDBACK_BONUS} × 100 % ({@link RecallRanker}). One store write per call
   * (an atomic update per record; on pgvector a single SQL statement); never on the recall path.
   */
  @Override
  public int feedback(AgentId agent, OwnerKey owner, List<String> ids) {
    checkOpen();
    Require.nonNull("agent owner ids", agent, owner, ids);
    return guarded(() -> trust.used(agent, owner, ids));
  }

  /**
   * Lowers the owner's trust in each recalled record among {@code ids} that exists and that the
   * owner may see, as {@link #feedback} raises it ({@link VectorTrust}): the record's score for
   * this owner falls by its distrust factor ({@link RecallRanker}, at most by half), and a record
   * marked wrong {@code wrong-suppress-count} times is suppressed for the owner (their PERSONAL
   * record gets status SUPPRESSED; a shared one is hidden from their recall only). Never deletes;
   * never on the recall path.
   */
  @Override
  public int wrong(AgentId agent, OwnerKey owner, List<String> ids) {
    checkOpen();
    Require.nonNull("agent owner ids", agent, owner, ids);
    return guarded(() -> trust.wrong(agent, owner, ids));
  }

  RecallItem item(RecallRanker.Ranked ranked) {
    MemoryRecord record = MemoryRecord.fromDocument(ranked.document());
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put("id", record.id());
    metadata.put("type", record.type());
    metadata.put("status", record.status().name());
    metadata.putAll(MemoryTexts.origin(record));
    metadata.put("store", storeName);
    ranked.signals().forEach((key, value) -> metadata.put("signal." + key, value));
    return new RecallItem(
        MemoryTexts.undated(record.text()),
        ranked.score(),
        record.scope(),
        record.owner(),
        id,
        record.createdAt(),
        metadata);
  }

  @Override
  public void syncTurn(Turn turn) {
    syncTurns(List.of(turn));
  }

  /**
   * Stores the records of all the turns in one write: one existence check, one embedding call for
   * all their texts (spread over the cores by the host's embedder) and one durable store write, so
   * the index is refreshed once per batch rather than once per turn.
   */
  @Override
  public void syncTurns(List<Turn> turns) {
    checkOpen();
    Map<String, MemoryRecord> records =
        new LinkedHashMap<>(); // by id: a turn sent twice counts once
    for (Turn turn : turns) {
      String before = contexts.before(turn);
      String previousTurn = contexts.previousTurn(turn);
      for (MemoryRecord record :
          MemoryTexts.turnRecords(turn, settings.capture(), settings.chunkSize())) {
        MemoryRecord linked =
            previousTurn == null
                ? record
                : record.withExtra(MemoryRecord.PREVIOUS_TURN, previousTurn);
        records.putIfAbsent(record.id(), ConversationContexts.withContext(linked, before));
      }
    }
    if (records.isEmpty()) {
      return;
    }
    Set<String> addedTurns =
        guarded(
            () -> {
              Set<String> existing = store.existingIds(List.copyOf(records.keySet()));
              List<Document> missing = new ArrayList<>();
              Set<String> turnIds = new HashSet<>();
              for (MemoryRecord record : records.values()) {
                if (!existing.contains(record.id())) {
                  missing.add(record.toDocument());
                  turnIds.add(record.turn());
                }
              }
              if (turns.size() > 1) {
                store.addBatch(missing); // searchable within a second: one refresh per second
              } else {
                store.add(missing);
              }
              return turnIds;
            });
    for (Turn turn : turns) {
      if (addedTurns.remove(turn.turnId())) {
        facts.submit(turn); // a redelivered turn is not extracted twice
      }
    }
  }

  @Override
  public long forget(OwnerKey owner) {
    checkOpen();
    return guarded(
        () -> {
          Filter.Expression ofOwner = MemoryFilters.ofOwner(owner);
          long count = store.count(ofOwner);
          facts.forgotten(owner); // queued extractions for the owner write nothing now
          if (count > 0) {
            store.delete(ofOwner);
          }
          store.deleteFeedback(owner); // what they used or marked wrong, shared records included
          store.history().deleteOwner(owner); // the changes of their memories, forgets included
          contradictions.deleteOwner(owner); // their inbox
          store.expungeDeleted(); // nothing of the deleted records stays in the store's files
          return count;
        });
  }

  /** The memory tools, then the memory type tools. */
  static final List<ToolSpec> TOOLS =
      java.util.stream.Stream.concat(VectorMemoryTools.ALL_SPECS.stream(), TypeTools.SPECS.stream())
          .toList();

  @Override
  public List<ToolSpec> tools() {
    return TOOLS;
  }

  @Override
  public String callTool(ToolCall call) {
    checkOpen();
    try {
      return guarded(() -> tools.call(call));
    } catch (ToolException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new ToolException(
          ToolException.Kind.INVALID_ARGUMENT, call.name() + ": " + e.getMessage(), e);
    } catch (IllegalStateException e) {
      if (closed) {
        throw e;
      }
      throw new ToolException(
          ToolException.Kind.UNAVAILABLE,
          call.name() + ": the memory store failed: " + e.getMessage(),
          e);
    } catch (java.io.UncheckedIOException e) {
      throw new ToolException(
          ToolException.Kind.UNAVAILABLE,
          call.name() + ": the memory store failed: " + e.getMessage(),
          e);
    }
  }

  @Override
  public ProviderHealth health() {
    if (closed) {
      return ProviderHealth.down("closed");
    }
    String detail =
        "store="
            + storeName
            + ", model="
            + embedder.modelId()
            + ", facts="
            + (facts.active() ? "on" : "off");
    String failure = lastFailure;
    return failure == null
        ? new ProviderHealth(ProviderHealth.Status.UP, detail)
        : ProviderHealth.degraded(detail + ", last store error: " + failure);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (decay != null) {
      decay.cancel();
    }
    consolidation.cancel();
    // no shutdownNow: an interrupt would close the store's channels under a running task
    maintenance.shutdown();
    try {
      if (!maintenance.awaitTermination(2, TimeUnit.SECONDS)) {
        org.slf4j.LoggerFactory.getLogger(VectorMemoryProvider.class)
            .warn("vector provider {}: maintenance still running at close; abandoned", id);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      store.close();
    } catch (RuntimeException ignored) {
      // close must not throw
    }
  }

  // ------------------------------------------------------------ for the tools

  /** What the provider's tools work on, beside the provider itself. */
  record ToolParts(
      VectorTrust trust,
      MemoryVectorStore store,
      StoreEmbedder embedder,
      VectorSettings settings,
      LifecycleSettings lifecycleSettings,
      MergeCandidates mergeCandidates,
      MemoryTypes types,
      ContradictionInbox contradictions,
      TypedConsolidation consolidation) {}

  /**
   * Shows {@code owner} again a shared record their wrongs hid from their recall; whether it was
   * hidden from them.
   */
  boolean showAgain(OwnerKey owner, String id) {
    Trust row = store.trust(owner, List.of(id)).get(id);
    return row != null && row.hidden() && store.hide(owner, id, false);
  }

  ToolParts parts() {
    return parts;
  }

  /** The pending memory of an open contradiction, or {@code null} if it is gone. */
  MemoryRecord pending(Contradiction c) {
    try {
      return store.get(c.incoming()).map(MemoryRecord::fromDocument).orElse(null);
    } catch (RuntimeException e) {
      log.warn("Could not read the pending memory {}: {}", c.incoming(), e.toString());
      return null;
    }
  }

  Instant now() {
    return clock.instant();
  }

  /** Whether a record is one the caller may see and change. */
  static boolean visible(MemoryRecord record, AgentId agent, OwnerKey owner) {
    return switch (record.scope()) {
      case GLOBAL -> true;
      case TEAM -> record.agent().equals(agent);
      case PERSONAL -> record.agent().equals(agent) && record.owner().equals(owner);
    };
  }

  static Scope scopeOf(String text) {
    try {
      return Scope.valueOf(text.trim().toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "scope must be personal, team or global, got '" + text + "'");
    }
  }

  private <T> T guarded(Supplier<T> action) {
    try {
      T result = action.get();
      lastFailure = null;
      return result;
    } catch (ToolException e) {
      throw e;
    } catch (RuntimeException e) {
      if (!(e instanceof IllegalArgumentException)) {
        lastFailure = e.getClass().getSimpleName() + ": " + e.getMessage();
      }
      if (closed) {
        throw new IllegalStateException("provider " + id + " is closed", e);
      }
      throw e;
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("provider " + id + " is closed");
    }
  }
}
