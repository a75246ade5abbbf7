package dev.memstack.vector.consolidation;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.Scope;
import dev.memstack.support.ConsolidationSettings;
import dev.memstack.support.CoordinatedWork;
import dev.memstack.support.PluginResources;
import dev.memstack.support.Require;
import dev.memstack.vector.contradictions.Contradiction;
import dev.memstack.vector.contradictions.ContradictionInbox;
import dev.memstack.vector.facts.FactConsolidator;
import dev.memstack.vector.lifecycle.Importance;
import dev.memstack.vector.lifecycle.Lifecycle;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryHistory;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.types.MemoryType;
import dev.memstack.vector.types.MemoryTypes;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Structured consolidation of the typed memories (the seeds' nightly consolidation, as builtin runs
 * it over {@code PROFILE.md} and {@code MEMORY.md}): per owner and per type, an owner's ACTIVE
 * PERSONAL memories of one type of the agent (the built-in types but {@code RAW}, and the agent's
 * custom types), at least {@code structured-consolidation-min-entries} of them and the newest
 * {@value #MAX_ENTRIES} at most, go to the host's chat model, which merges near-duplicates, drops
 * outdated ones and answers the complete new list ({@link ConsolidationPlan}). Memories in an open
 * contradiction are left out (the owner decides those).
 *
 * <p>The only-shrink invariant: an answer with as many entries as it was given or more, one that is
 * not such JSON, or a model error writes nothing. Otherwise, first the new and changed memories are
 * written, then the replaced ones archived (a failure in between leaves both active, never
 * neither): an entry that keeps one memory's text keeps that memory; one that rewords a single
 * memory replaces its text in place; one that merges several into a text none of them has is a new
 * ACTIVE memory ({@code source=consolidation}, {@code consolidates} = their ids, dated as the
 * newest of them, with their highest importance and weight); every memory merged into another, and
 * every memory no entry names, becomes ARCHIVED ({@code archived_by=consolidation}, never deleted).
 * Each change is in the memory's history with the earlier text ({@code updated}, {@code merged},
 * {@code status}). A group whose memories changed while the model worked (another status, another
 * text) is left as it is.
 *
 * <p>A run covers one owner of an agent, or at most {@code
 * structured-consolidation-max-owners-per-run} owners that have a type with enough memories
 * (continuing, run after run, where the previous one stopped: {@link CoordinatedWork#turn}). It
 * holds the lock {@code structured-consolidation:<agent>} (a run finding it held, here or on
 * another host, does not start), and in shared mode also each owner's fact lock ({@link
 * FactConsolidator#lockName(AgentId, OwnerKey)}), so that the owner's facts are not extracted and
 * merged at once on two hosts (an owner whose lock is held is skipped, {@code busy}). The schedule
 * ({@code structured-consolidation-cron}, in the clock's zone) runs on the provider's maintenance
 * thread, after the facts queued before it; in shared mode each scheduled time is claimed ({@code
 * structured-consolidation} at the fire time), so of the hosts one runs it. Nothing runs without a
 * chat model. A memory written or erased by another call between the last check and the writes
 * (milliseconds) can slip through, as for fact extraction. Thread-safe.
 */
public final class TypedConsolidation {

  private static final Logger LOG = LoggerFactory.getLogger(TypedConsolidation.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The name of the job's lock, slots and owner counter. */
  public static final String JOB = "structured-consolidation";

  /** Most memories of one type sent to the model at once: the newest. */
  public static final int MAX_ENTRIES = 100;

  /** The {@code source} of a memory merged from others. */
  public static final String SOURCE = "consolidation";

  /** Metadata key of a merged memory: the ids of the memories it was merged from. */
  public static final String CONSOLIDATES = "consolidates";

  /** Metadata key of a memory archived by a merge: the id of the memory it went into. */
  public static final String CONSOLIDATED_INTO = "consolidated_into";

  private static final String REASON = "structured consolidation";
  private static final int PAGE = 500;

  /**
   * What one owner's memories of one type went through.
   *
   * @param status {@code updated}, {@code unchanged} (the model kept as many entries; nothing
   *     written), {@code below_minimum}, {@code grew} (more entries; nothing written), {@code
   *     invalid_answer}, {@code failed} (the model failed), {@code changed_meanwhile} or {@code
   *     busy} (the owner's facts were being written on another host)
   * @param entriesBefore the owner's ACTIVE memories of the type before
   * @param entriesAfter the same after (equal to before when nothing was written)
   * @param merged what the model said it merged or dropped
   */
  public record Group(
      OwnerKey owner,
      String type,
      String status,
      String reason,
      int entriesBefore,
      int entriesAfter,
      List<String> merged) {

    public Group {
      merged = List.copyOf(merged);
    }
  }

  /**
   * One run over an agent.
   *
   * @param ownersConsolidated owners the run went through
   * @param groups what each owner's memories of each type went through
   */
  public record Run(String trigger, int ownersConsolidated, List<Group> groups) {

    public Run {
      groups = List.copyOf(groups);
    }

    /** The groups written. */
    public int updated() {
      return (int) groups.stream().filter(g -> g.status().equals("updated")).count();
    }

    /** The memories of every group gone through, before. */
    public int entriesBefore() {
      return groups.stream().mapToInt(Group::entriesBefore).sum();
    }

    /** The same after. */
    public int entriesAfter() {
      return groups.stream().mapToInt(Group::entriesAfter).sum();
    }
  }

  /**
   * What the job works with.
   *
   * @param modelTimeout longest wait for one answer ({@code facts-model-timeout})
   * @param maxChars the longest text a merged memory may have ({@code chunk-size})
   */
  public record Parts(
      MemoryVectorStore store,
      LanguageModel model,
      MemoryTypes types,
      ContradictionInbox contradictions,
      ConsolidationSettings settings,
      Duration modelTimeout,
      int maxChars,
      Clock clock,
      Coordination coordination) {

    public Parts {
      Require.nonNull(
          "store model types contradictions settings modelTimeout clock coordination",
          store,
          model,
          types,
          contradictions,
          settings,
          modelTimeout,
          clock,
          coordination);
    }
  }

  private final MemoryVectorStore store;
  private final LanguageModel model;
  private final ConsolidationSettings settings;
  private final Parts parts;
  private final String systemPrompt = prompt("consolidate-system.txt");
  private final String userPrompt = prompt("consolidate-user.txt");
  private volatile ScheduledFuture<?> scheduled;
  private volatile boolean cancelled;

  public TypedConsolidation(Parts parts) {
    this.parts = parts;
    this.store = parts.store();
    this.model = parts.model();
    this.settings = parts.settings();
  }

  /** Whether a chat model is configured: without one nothing runs. */
  public boolean available() {
    return model.available();
  }

  // ------------------------------------------------------------------ runs

  /**
   * Consolidates the agent now: {@code owner}'s memories when given, else up to the per-run maximum
   * of owners.
   *
   * @param trigger {@code manual} or {@code scheduled}
   * @return the run, or empty when a run of the agent is in progress (here or on another host) or
   *     no chat model is configured
   * @throws ProviderUnavailableException when the coordination cannot be reached
   */
  public Optional<Run> run(AgentId agent, OwnerKey owner, String trigger) {
    if (!model.available()) {
      return Optional.empty();
    }
    return locked(
        agent,
        renew ->
            consolidate(
                agent, owner, trigger, census(agent, owner).getOrDefault(agent, Map.of()), renew));
  }

  /**
   * The scheduled run of {@code fireTime} over every agent with typed memories: in shared mode only
   * when this host claims the time. Does nothing when the schedule is off or no chat model is
   * configured; an agent that fails is logged and the others run.
   *
   * @return how many agents ran
   */
  public int runScheduled(Instant fireTime) {
    if (!settings.enabled() || !model.available()) {
      return 0;
    }
    Map<AgentId, Map<OwnerKey, Map<String, Integer>>> census;
    try {
      if (parts.coordination().shared()
          && !parts.coordination().claimRun(JOB, fireTime.toString())) {
        LOG.debug("structured consolidation of {}: run by another host", fireTime);
        return 0;
      }
      census = census(null, null);
    } catch (ProviderUnavailableException e) {
      LOG.warn("structured consolidation of {} skipped: {}", fireTime, e.getMessage());
      return 0;
    }
    int ran = 0;
    for (Map.Entry<AgentId, Map<OwnerKey, Map<String, Integer>>> agent : census.entrySet()) {
      try {
        Optional<Run> run =
            locked(
                agent.getKey(),
                renew -> consolidate(agent.getKey(), null, "scheduled", agent.getValue(), renew));
        if (run.isPresent()) {
          ran++;
          LOG.info(
              "structured consolidation of agent {}: {} group(s) updated, {} → {} memories",
              agent.getKey(),
              run.get().updated(),
              run.get().entriesBefore(),
              run.get().entriesAfter());
        }
      } catch (RuntimeException e) {
        LOG.warn("structured consolidation of agent {} failed: {}", agent.getKey(), e.toString());
      }
    }
    return ran;
  }

  /** Runs {@code work} under the agent's lock; empty when it is held. */
  private Optional<Run> locked(AgentId agent, Function<Runnable, Run> work) {
    Optional<Coordination.Lease> taken =
        parts.coordination().tryLock(JOB + ":" + agent.value(), lease());
    if (taken.isEmpty()) {
      return Optional.empty();
    }
    try (Coordination.Lease held = taken.get()) {
      return Optional.of(work.apply(() -> renew(held)));
    }
  }

  /** A lease long enough for one model call and its writes; renewed before each further one. */
  private Duration lease() {
    return parts.modelTimeout().plusSeconds(30);
  }

  private static void renew(Coordination.Lease lease) {
    try {
      if (!lease.renew()) {
        LOG.warn("structured consolidation: a lock's lease passed during the run");
      }
    } catch (ProviderUnavailableException e) {
      LOG.debug("structured consolidation: lease not renewed: {}", e.getMessage());
    }
  }

  private Run consolidate(
      AgentId agent,
      OwnerKey owner,
      String trigger,
      Map<OwnerKey, Map<String, Integer>> census,
      Runnable renew) {
    Map<String, MemoryType> known = new LinkedHashMap<>();
    for (MemoryType type : parts.types().all(agent)) {
      if (!type.key().equals("RAW")) {
        known.put(type.key(), type);
      }
    }
    List<OwnerKey> owners;
    if (owner != null) {
      owners = List.of(owner);
    } else {
      List<OwnerKey> eligible = new ArrayList<>();
      census.forEach(
          (who, counts) -> {
            if (counts.entrySet().stream()
                .anyMatch(
                    c -> known.containsKey(c.getKey()) && c.getValue() >= settings.minEntries())) {
              eligible.add(who);
            }
          });
      owners = ownersThisRun(agent, eligible);
    }
    List<Group> groups = new ArrayList<>();
    for (OwnerKey who : owners) {
      List<MemoryType> own = new ArrayList<>();
      census.getOrDefault(who, Map.of()).keySet().stream()
          .filter(known::containsKey)
          .sorted()
          .forEach(key -> own.add(known.get(key)));
      groups.addAll(consolidateOwner(agent, who, own, renew));
    }
    return new Run(trigger, owners.size(), groups);
  }

  /** At most the per-run maximum of {@code eligible}, taking turns across runs and hosts. */
  private List<OwnerKey> ownersThisRun(AgentId agent, List<OwnerKey> eligible) {
    eligible.sort(Comparator.comparing(OwnerKey::value));
    try {
      return CoordinatedWork.turn(
          parts.coordination(), JOB + "-owners:" + agent.value(), eligible, settings.maxOwners());
    } catch (ProviderUnavailableException e) {
      LOG.debug(
          "structured consolidation of agent {}: the first owners: {}", agent, e.getMessage());
      return CoordinatedWork.window(eligible, 0, settings.maxOwners());
    }
  }

  /** One owner's groups, under the owner's fact lock in shared mode. */
  private List<Group> consolidateOwner(
      AgentId agent, OwnerKey owner, List<MemoryType> own, Runnable renew) {
    Coordination.Lease facts = null;
    if (parts.coordination().shared()) {
      facts =
          parts
              .coordination()
              .tryLock(FactConsolidator.lockName(agent, owner), lease())
              .orElse(null);
      if (facts == null) {
        List<Group> busy = new ArrayList<>();
        for (MemoryType type : own) {
          int count = (int) store.count(filter(agent, owner, type.key()));
          busy.add(
              unchanged(
                  owner,
                  type,
                  "busy",
                  "the owner's facts are being written on another host; left for the next run",
                  count,
                  List.of()));
        }
        return busy;
      }
    }
    try {
      List<Group> groups = new ArrayList<>();
      for (MemoryType type : own) {
        renew.run();
        if (facts != null) {
          renew(facts);
        }
        groups.add(consolidate(agent, owner, type));
      }
      return groups;
    } finally {
      if (facts != null) {
        facts.close();
      }
    }
  }

  // ------------------------------------------------------------------ one group

  private Group consolidate(AgentId agent, OwnerKey owner, MemoryType type) {
    Filter.Expression filter = filter(agent, owner, type.key());
    int before = (int) store.count(filter);
    int min = settings.minEntries();
    if (before < min) {
      return unchanged(owner, type, "below_minimum", belowMinimum(before, ""), before, List.of());
    }
    List<MemoryRecord> given = given(filter);
    if (given.size() < min) {
      return unchanged(
          owner,
          type,
          "below_minimum",
          belowMinimum(given.size(), " outside open contradictions"),
          before,
          List.of());
    }
    String answer;
    try {
      answer = model.complete(systemPrompt, userPrompt(type, given), parts.modelTimeout());
    } catch (RuntimeException e) {
      LOG.warn(
          "structured consolidation in agent {} of type {}: the chat model failed: {}",
          agent,
          type.key(),
          e.toString());
      return unchanged(
          owner, type, "failed", "the chat model failed; nothing changed", before, List.of());
    }
    ConsolidationPlan plan = ConsolidationPlan.parse(answer, given.size(), parts.maxChars());
    if (plan.refused()) {
      LOG.warn(
          "structured consolidation in agent {} of type {}: {}", agent, type.key(), plan.invalid());
      return unchanged(owner, type, "invalid_answer", plan.invalid(), before, List.of());
    }
    int answered = plan.answered();
    if (answered >= given.size()) {
      String reason =
          "the model returned "
              + answered
              + " entries for "
              + given.size()
              + "; a consolidation only shrinks, nothing written";
      return unchanged(
          owner,
          type,
          answered > given.size() ? "grew" : "unchanged",
          reason,
          before,
          plan.merged());
    }
    if (changedMeanwhile(given)) {
      return unchanged(
          owner,
          type,
          "changed_meanwhile",
          "memories changed while the model worked; nothing written",
          before,
          plan.merged());
    }
    apply(given, plan, agent, owner, type);
    int after = before - given.size() + answered;
    String reason =
        plan.reason().isEmpty()
            ? given.size() + " memories consolidated into " + answered
            : plan.reason();
    return new Group(owner, type.key(), "updated", reason, before, after, plan.merged());
  }

  private String belowMinimum(int count, String where) {
    return count
        + " memories"
        + where
        + ", fewer than structured-consolidation-min-entries ("
        + settings.minEntries()
        + ")";
  }

  private static Group unchanged(
      OwnerKey owner,
      MemoryType type,
      String status,
      String reason,
      int before,
      List<String> merged) {
    return new Group(owner, type.key(), status, reason, before, before, merged);
  }

  /** The owner's ACTIVE PERSONAL memories of the type in the agent. */
  private static Filter.Expression filter(AgentId agent, OwnerKey owner, String type) {
    return MemoryFilters.and(
        personalActive(agent, owner), MemoryFilters.eq(MemoryVectorStore.TYPE, type));
  }

  private static Filter.Expression personalActive(AgentId agent, OwnerKey owner) {
    Filter.Expression filter =
        MemoryFilters.and(
            MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name()),
            MemoryFilters.eq(MemoryVectorStore.SCOPE, Scope.PERSONAL.name()));
    if (agent != null) {
      filter = MemoryFilters.and(filter, MemoryFilters.eq(MemoryVectorStore.AGENT, agent.value()));
    }
    if (owner != null) {
      filter = MemoryFilters.and(filter, MemoryFilters.ofOwner(owner));
    }
    return filter;
  }

  /** The newest memories of the filter outside open contradictions, oldest first. */
  private List<MemoryRecord> given(Filter.Expression filter) {
    List<MemoryRecord> listed = new ArrayList<>();
    for (Document document : store.list(filter, 0, MAX_ENTRIES)) {
      listed.add(MemoryRecord.fromDocument(document));
    }
    Set<String> disputed = new HashSet<>();
    for (Contradiction c :
        parts
            .contradictions()
            .queue()
            .contradicting(listed.stream().map(MemoryRecord::id).toList())) {
      disputed.add(c.existing());
      disputed.add(c.incoming());
    }
    listed.removeIf(r -> disputed.contains(r.id()));
    listed.sort(Comparator.comparing(MemoryRecord::createdAt).thenComparing(MemoryRecord::id));
    return listed;
  }

  private String userPrompt(MemoryType type, List<MemoryRecord> given) {
    StringBuilder entries = new StringBuilder();
    for (int i = 0; i < given.size(); i++) {
      MemoryRecord record = given.get(i);
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("i", i);
      line.put("date", record.createdAt().atZone(ZoneOffset.UTC).toLocalDate().toString());
      line.put("text", MemoryRecord.undated(record.text()));
      entries.append(JSON.writeValueAsString(line)).append('\n');
    }
    String described =
        type.key()
            + " ("
            + type.name()
            + (type.description() == null ? "" : ": " + type.description())
            + ")";
    return userPrompt
        .replace(
            "{{date}}",
            parts.clock().instant().atZone(parts.clock().getZone()).toLocalDate().toString())
        .replace("{{type}}", described)
        .replace("{{entry_count}}", Integer.toString(given.size()))
        .replace("{{entries}}", entries.toString().strip());
  }

  /** Whether any given memory is gone, no longer ACTIVE or changed since it was read. */
  private boolean changedMeanwhile(List<MemoryRecord> given) {
    List<String> ids = given.stream().map(MemoryRecord::id).toList();
    Map<String, MemoryRecord> now = new LinkedHashMap<>();
    for (Document document :
        store.list(MemoryFilters.in(MemoryVectorStore.ID, ids), 0, ids.size())) {
      now.put(document.getId(), MemoryRecord.fromDocument(document));
    }
    for (MemoryRecord record : given) {
      MemoryRecord current = now.get(record.id());
      if (current == null
          || current.status() != MemoryStatus.ACTIVE
          || !current.text().equals(record.text())
          || !current.updatedAt().equals(record.updatedAt())) {
        return true;
      }
    }
    return false;
  }

  // ------------------------------------------------------------------ writes

  /**
   * Writes the plan: the kept, reworded and merged memories first, then the archives, each change
   * in the history.
   */
  private void apply(
      List<MemoryRecord> given,
      ConsolidationPlan plan,
      AgentId agent,
      OwnerKey owner,
      MemoryType type) {
    Instant now = parts.clock().instant();
    MemoryHistory history = store.history();
    Map<MemoryRecord, MemoryRecord> into = new LinkedHashMap<>(); // archived → where it went
    for (ConsolidationPlan.Entry entry : plan.entries()) {
      List<MemoryRecord> sources = entry.from().stream().map(given::get).toList();
      MemoryRecord target =
          sources.stream()
              .filter(s -> MemoryRecord.undated(s.text()).equals(entry.text()))
              .findFirst()
              .orElse(null);
      if (target == null && sources.size() == 1) {
        target = reword(sources.get(0), entry.text(), now, history);
      } else if (target == null) {
        target = merged(sources, entry.text(), agent, owner, type, now);
      }
      for (MemoryRecord source : sources) {
        if (!source.id().equals(target.id())) {
          into.put(source, target);
          history.record(
              target,
              now,
              "merged",
              null,
              Map.of(
                  "other",
                  source.id(),
                  "previous",
                  MemoryRecord.undated(source.text()),
                  "reason",
                  REASON));
        }
      }
    }
    for (Map.Entry<MemoryRecord, MemoryRecord> merged : into.entrySet()) {
      archive(merged.getKey(), merged.getValue(), now, history);
    }
    for (int index : plan.dropped(given.size())) {
      archive(given.get(index), null, now, history);
    }
  }

  /** One memory's text replaced in place (re-embedded), its date prefix kept. */
  private MemoryRecord reword(
      MemoryRecord source, String text, Instant now, MemoryHistory history) {
    String before = MemoryRecord.undated(source.text());
    String prefix = source.text().substring(0, source.text().length() - before.length());
    MemoryRecord reworded =
        source.withText(prefix + text).withExtra(MemoryRecord.UPDATED_AT, changedAt(source, now));
    store.add(List.of(reworded.toDocument())); // an upsert by id
    history.record(
        reworded, now, "updated", null, Map.of("text", text, "previous", before, "reason", REASON));
    return reworded;
  }

  /** A new ACTIVE memory for several merged into a new text, dated as the newest of them. */
  private MemoryRecord merged(
      List<MemoryRecord> sources,
      String text,
      AgentId agent,
      OwnerKey owner,
      MemoryType type,
      Instant now) {
    MemoryRecord newest =
        sources.stream().max(Comparator.comparing(MemoryRecord::createdAt)).orElseThrow();
    String undated = MemoryRecord.undated(newest.text());
    String prefix = newest.text().substring(0, newest.text().length() - undated.length());
    List<String> ids = sources.stream().map(MemoryRecord::id).sorted().toList();
    Map<String, Object> extra = lifecycle(sources, now);
    extra.put("source", SOURCE);
    extra.put(CONSOLIDATES, String.join(",", ids));
    extra.put(MemoryRecord.UPDATED_AT, now.toEpochMilli());
    String key =
        String.join(
            "\u0000",
            SOURCE,
            agent.value(),
            owner.value(),
            type.key(),
            text.replaceAll("\\s+", " ").toLowerCase(Locale.ROOT),
            String.join(",", ids));
    MemoryRecord record =
        new MemoryRecord(
            UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString(),
            prefix + text,
            agent,
            owner,
            Scope.PERSONAL,
            MemoryStatus.ACTIVE,
            type.key(),
            null,
            null,
            newest.createdAt(),
            extra);
    store.add(List.of(record.toDocument()));
    return record;
  }

  /** The highest importance and weight of the sources that have them; none when none has. */
  private static Map<String, Object> lifecycle(List<MemoryRecord> sources, Instant now) {
    Importance importance = null;
    double weight = 0;
    for (MemoryRecord source : sources) {
      if (Lifecycle.tracked(source.extra())) {
        Importance own = Importance.parse(source.extra().get(Lifecycle.IMPORTANCE), null);
        if (own != null && (importance == null || own.ordinal() < importance.ordinal())) {
          importance = own;
        }
        weight = Math.max(weight, Lifecycle.weight(source.extra()));
      }
    }
    if (importance == null) {
      return new LinkedHashMap<>();
    }
    Map<String, Object> metadata = Lifecycle.initial(importance, now);
    metadata.put(Lifecycle.WEIGHT, weight);
    return metadata;
  }

  /** Archives a memory merged into {@code target}, or dropped as outdated when it is null. */
  private void archive(
      MemoryRecord source, MemoryRecord target, Instant now, MemoryHistory history) {
    Map<String, Object> changes = new LinkedHashMap<>();
    changes.put(MemoryVectorStore.STATUS, MemoryStatus.ARCHIVED.name());
    changes.put(Lifecycle.ARCHIVED_BY, SOURCE);
    changes.put(CONSOLIDATED_INTO, target == null ? null : target.id());
    changes.put(MemoryRecord.UPDATED_AT, changedAt(source, now));
    if (!store.updateMetadata(source.id(), changes)) {
      return; // erased meanwhile
    }
    Map<String, String> details = new LinkedHashMap<>();
    details.put("status", MemoryStatus.ARCHIVED.wireName());
    details.put("previousStatus", MemoryStatus.ACTIVE.wireName());
    if (target == null) {
      details.put("reason", REASON + ": outdated");
    } else {
      details.put("reason", REASON + ": merged");
      details.put("other", target.id());
      details.put("text", MemoryRecord.undated(target.text()));
    }
    history.record(source, now, "status", null, details);
  }

  /** Every change moves a memory's {@code updated_at}: a stale read stays stale. */
  private static long changedAt(MemoryRecord record, Instant now) {
    return Math.max(now.toEpochMilli(), record.updatedAt().toEpochMilli() + 1);
  }

  // ------------------------------------------------------------------ census

  /**
   * How many ACTIVE PERSONAL memories of each type but RAW each owner has, by agent (all agents
   * when {@code agent} is null, every owner when {@code owner} is null), agents and owners by key.
   */
  private Map<AgentId, Map<OwnerKey, Map<String, Integer>>> census(AgentId agent, OwnerKey owner) {
    Filter.Expression filter =
        MemoryFilters.and(
            personalActive(agent, owner), MemoryFilters.ne(MemoryVectorStore.TYPE, "RAW"));
    Map<AgentId, Map<OwnerKey, Map<String, Integer>>> census =
        new TreeMap<>(Comparator.comparing(AgentId::value));
    for (int offset = 0; ; offset += PAGE) {
      List<Document> page = store.list(filter, offset, PAGE);
      for (Document document : page) {
        Map<String, Object> m = document.getMetadata();
        census
            .computeIfAbsent(
                AgentId.of(m.get(MemoryVectorStore.AGENT).toString()),
                a -> new TreeMap<>(Comparator.comparing(OwnerKey::value)))
            .computeIfAbsent(
                OwnerKey.of(m.get(MemoryVectorStore.OWNER).toString()), o -> new TreeMap<>())
            .merge(m.get(MemoryVectorStore.TYPE).toString(), 1, Integer::sum);
      }
      if (page.size() < PAGE) {
        break;
      }
    }
    return census;
  }

  // ------------------------------------------------------------------ schedule

  /**
   * Schedules the runs on {@code executor} (the provider's maintenance thread), each at the next
   * time of {@code structured-consolidation-cron} after the last; nothing when the schedule is off
   * or no chat model is configured.
   */
  public synchronized void start(ScheduledExecutorService executor) {
    if (!settings.enabled() || !model.available() || scheduled != null) {
      return;
    }
    scheduleAfter(executor, parts.clock().instant());
  }

  private synchronized void scheduleAfter(ScheduledExecutorService executor, Instant after) {
    if (cancelled) {
      return;
    }
    Instant fire = nextRun(after);
    long delay = Math.max(0, Duration.between(parts.clock().instant(), fire).toMillis());
    try {
      scheduled =
          executor.schedule(
              () -> {
                try {
                  runScheduled(fire);
                } catch (RuntimeException e) {
                  LOG.warn("structured consolidation of {} failed: {}", fire, e.toString());
                } finally {
                  Instant now = parts.clock().instant();
                  scheduleAfter(executor, now.isAfter(fire) ? now : fire);
                }
              },
              delay,
              TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      LOG.debug("structured consolidation not scheduled: the provider is closing");
    }
  }

  /** The first time of {@code structured-consolidation-cron} after {@code after}. */
  public Instant nextRun(Instant after) {
    return settings.cron().next(after.atZone(parts.clock().getZone())).toInstant();
  }

  /** Stops future runs; a run in progress finishes. */
  public synchronized void cancel() {
    cancelled = true;
    ScheduledFuture<?> future = scheduled;
    if (future != null) {
      future.cancel(false);
    }
  }

  private static String prompt(String name) {
    return PluginResources.text(TypedConsolidation.class, name, "prompt resource " + name);
  }
}
