package dev.memstack.vector.facts;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.Scope;
import dev.memstack.spi.Turn;
import dev.memstack.support.CoordinatedWork;
import dev.memstack.support.ErasureFence;
import dev.memstack.support.JsonAnswers;
import dev.memstack.vector.contradictions.ContradictionInbox;
import dev.memstack.vector.lifecycle.Importance;
import dev.memstack.vector.lifecycle.Lifecycle;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import dev.memstack.vector.text.Supersession;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Typed facts from turns, on the host's chat model. For a stored turn the model lists facts (FACT,
 * DECISION, PREFERENCE, TASK_PROGRESS, REFERENCE, with an importance) about the owner; each
 * candidate is compared with the owner's five nearest ACTIVE fact records of the agent (raw turns
 * are not compared: the turn a fact comes from would always match it). At cosine similarity ≥
 * {@value FactSettings#SAME_FACT} it is known already (NONE) without asking when {@link
 * Supersession} also takes it as a duplicate; a changed value (a negation, a number, a name, ...)
 * or a statement that says more goes to the model as below; with no neighbour it is added;
 * otherwise the model decides ADD, UPDATE (new text, the old text appended to the JSON list in the
 * {@code history} metadata key), DELETE (the contradicted record is ARCHIVED, never erased, and the
 * candidate added; with {@code contradiction-check-enabled}, both are kept instead, the candidate
 * pending in the owner's contradiction inbox) or NONE. New facts are PERSONAL records with
 * lifecycle metadata ({@link Lifecycle#initial}). An answer without usable JSON, a model error or a
 * timeout ({@code facts-model-timeout}) changes nothing and is logged. Without a chat model, or
 * with {@code facts-enabled=false}, nothing runs. {@link #submit} hands the work to the given
 * executor, so {@code syncTurn} stays quick; {@link #process} runs it on the calling thread.
 *
 * <p>When the coordination spans hosts ({@link Coordination#shared()}), one turn's consolidation
 * holds the lock {@code facts:<agent>|<owner>}, so two hosts never compare and write one owner's
 * facts at once (both would add the same fact, or update one record twice); the extraction call
 * before it runs unlocked. The lease covers the model calls of a turn and is renewed before each
 * further candidate; a turn waits for a held lock as long as one lease and then goes ahead without
 * it (a duplicate is better than a lost fact), as it does when the coordination cannot be reached.
 */
public final class FactConsolidator {

  private static final Logger LOG = LoggerFactory.getLogger(FactConsolidator.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final DateTimeFormatter DAY =
      DateTimeFormatter.ofPattern("yyyy-MM-dd", Locale.ROOT).withZone(ZoneOffset.UTC);
  private static final int MAX_MESSAGE = 4000;

  /** The metadata key holding earlier texts of an updated fact: a JSON list. */
  public static final String HISTORY = "history";

  /** What one turn changed. */
  public record Report(int candidates, int added, int updated, int archived, int unchanged) {
    static final Report NOTHING = new Report(0, 0, 0, 0, 0);
  }

  private final MemoryVectorStore store;
  private final StoreEmbedder embedder;
  private final LanguageModel model;
  private final FactSettings settings;
  private final Clock clock;
  private final Executor executor;
  private final Coordination coordination;
  private final FactPrompts prompts = FactPrompts.bundled();
  private volatile ContradictionInbox contradictions;
  // bumped by forget: work queued for an owner before it writes nothing afterwards; held shared
  // by the writes of a decision
  private final ErasureFence<OwnerKey> generations = new ErasureFence<>(32);

  public FactConsolidator(
      MemoryVectorStore store,
      StoreEmbedder embedder,
      LanguageModel model,
      FactSettings settings,
      Clock clock,
      Executor executor,
      Coordination coordination) {
    this.coordination = Objects.requireNonNull(coordination, "coordination");
    this.store = Objects.requireNonNull(store, "store");
    this.embedder = Objects.requireNonNull(embedder, "embedder");
    this.model = Objects.requireNonNull(model, "model");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  /**
   * Routes the contradictions the model finds (its DELETE decisions) through {@code inbox} when its
   * check is on: the contradicted fact stays active, the new one is stored pending. Off, the
   * contradicted fact is archived as before.
   *
   * @return this
   */
  public FactConsolidator withContradictions(ContradictionInbox inbox) {
    this.contradictions = inbox;
    return this;
  }

  /** Whether facts are extracted: enabled and a chat model is configured. */
  public boolean active() {
    return settings.enabled() && model.available();
  }

  /** Queues the turn for extraction and returns at once; does nothing when not {@link #active}. */
  public void submit(Turn turn) {
    if (!active()) {
      return;
    }
    long generation = generation(turn.owner());
    try {
      executor.execute(
          () -> {
            try {
              process(turn, generation);
            } catch (RuntimeException e) {
              LOG.warn("fact extraction for turn {} failed: {}", turn.turnId(), e.toString());
            }
          });
    } catch (RejectedExecutionException e) {
      LOG.debug("fact extraction for turn {} skipped: shutting down", turn.turnId());
    }
  }

  /**
   * Tells extraction work queued or running for {@code owner} to write nothing more: the owner's
   * memory was just erased.
   */
  public void forgotten(OwnerKey owner) {
    generations.countErasure(owner); // waits for the writes of a decision under way
  }

  /**
   * Runs the writes of one decision unless {@code owner} was forgotten since {@code generation} was
   * read, holding the owner's fence shared meanwhile: {@link #forgotten} waits for them, so the
   * erasure after it removes what they wrote, and writes after it see the new generation. The
   * model's decision is made before, outside the fence, so an erasure never waits for the model.
   *
   * @return whether the writes ran
   */
  private boolean unlessForgotten(OwnerKey owner, long generation, Runnable writes) {
    try (ErasureFence.Held held = generations.holdIfNotErasedSince(owner, generation)) {
      if (held == null) {
        return false;
      }
      writes.run();
      return true;
    }
  }

  private long generation(OwnerKey owner) {
    return generations.erasures(owner);
  }

  /** Extracts and consolidates the facts of one turn now. */
  public Report process(Turn turn) {
    return process(turn, generation(turn.owner()));
  }

  private Report process(Turn turn, long generation) {
    if (!active() || turn.userMessage().isBlank()) {
      return Report.NOTHING;
    }
    String answer =
        ask(
            prompts.extractSystem(),
            FactPrompts.fill(
                prompts.extractUser(),
                Map.of(
                    "date", DAY.format(turn.time()),
                    "user", cut(turn.userMessage()),
                    "assistant", cut(turn.assistantReply()))),
            "extraction of turn " + turn.turnId());
    if (answer == null) {
      return Report.NOTHING;
    }
    Optional<List<FactCandidate>> candidates = candidates(answer);
    if (candidates.isEmpty()) {
      LOG.warn(
          "fact extraction of turn {}: the model's answer holds no usable JSON; nothing changed: {}",
          turn.turnId(),
          abbreviate(answer));
      return Report.NOTHING;
    }
    if (!coordination.shared() || candidates.get().isEmpty()) {
      return consolidateAll(turn, generation, candidates.get(), null);
    }
    // the candidates' comparisons and writes, not the extraction, need the owner to themselves
    Duration lease = settings.modelTimeout().multipliedBy(settings.maxFacts() + 1L).plusSeconds(30);
    String name = lockName(turn);
    Optional<Coordination.Lease> held;
    try {
      held = CoordinatedWork.awaitLock(coordination, name, lease, lease);
    } catch (ProviderUnavailableException e) {
      LOG.warn(
          "facts of turn {}: {}; consolidating without the lock", turn.turnId(), e.getMessage());
      held = Optional.empty();
    }
    if (held.isEmpty()) {
      LOG.warn(
          "facts of turn {}: lock {} not taken in {}; consolidating without it",
          turn.turnId(),
          name,
          lease);
      return consolidateAll(turn, generation, candidates.get(), null);
    }
    try (Coordination.Lease lock = held.get()) {
      return consolidateAll(turn, generation, candidates.get(), lock);
    }
  }

  /**
   * The lock of one owner's facts in one agent: {@code facts:<agent>|<digest of the owner>} ({@link
   * CoordinatedWork#ownerWork}: no owner key in the shared tables).
   */
  static String lockName(Turn turn) {
    return lockName(turn.agent(), turn.owner());
  }

  /** The lock of {@code owner}'s facts in {@code agent}, which their consolidation holds too. */
  public static String lockName(AgentId agent, OwnerKey owner) {
    return CoordinatedWork.ownerWork("facts", agent.value(), owner.value());
  }

  private Report consolidateAll(
      Turn turn, long generation, List<FactCandidate> candidates, Coordination.Lease lock) {
    int added = 0;
    int updated = 0;
    int archived = 0;
    int unchanged = 0;
    boolean first = true;
    for (FactCandidate candidate : candidates) {
      if (generation(turn.owner()) != generation) {
        LOG.debug("facts of turn {} dropped: the owner was forgotten meanwhile", turn.turnId());
        break;
      }
      if (lock != null && !first) {
        renew(lock, turn);
      }
      first = false;
      switch (consolidate(turn, candidate, generation)) {
        case ADD -> added++;
        case UPDATE -> updated++;
        case DELETE -> {
          archived++;
          added++;
        }
        case NONE -> unchanged++;
      }
    }
    Report report = new Report(candidates.size(), added, updated, archived, unchanged);
    LOG.debug("facts of turn {}: {}", turn.turnId(), report);
    return report;
  }

  private static void renew(Coordination.Lease lock, Turn turn) {
    try {
      if (!lock.renew()) {
        LOG.warn(
            "facts of turn {}: the lock's lease passed; another host may write too", turn.turnId());
      }
    } catch (ProviderUnavailableException e) {
      LOG.debug("facts of turn {}: lease not renewed: {}", turn.turnId(), e.getMessage());
    }
  }

  /** The candidates in an extraction answer, or empty when it holds no usable JSON. */
  Optional<List<FactCandidate>> candidates(String answer) {
    Optional<JsonNode> parsed = JsonAnswers.value(answer);
    if (parsed.isEmpty()) {
      return Optional.empty();
    }
    JsonNode node = parsed.get();
    JsonNode facts = node.isArray() ? node : node.get("facts");
    if (facts == null || !facts.isArray()) {
      return Optional.empty();
    }
    List<FactCandidate> out = new ArrayList<>();
    for (JsonNode fact : facts) {
      if (out.size() >= settings.maxFacts()) {
        break;
      }
      String type = text(fact, "type").map(t -> t.toUpperCase(Locale.ROOT)).orElse("FACT");
      Optional<String> text = text(fact, "text");
      if (text.isEmpty() || !FactCandidate.TYPES.contains(type)) {
        LOG.debug("skipping a malformed fact in the model's answer: {}", fact);
        continue;
      }
      out.add(
          new FactCandidate(
              type,
              text.get().strip(),
              Importance.parse(text(fact, "importance").orElse(null), Importance.NORMAL)));
    }
    return Optional.of(out);
  }

  private FactEvent consolidate(Turn turn, FactCandidate candidate, long generation) {
    String id = factId(turn, candidate.text());
    if (store.get(id).isPresent()) {
      return FactEvent.NONE; // the same text is stored already (a redelivered turn, too)
    }
    // dated like the stored facts, so that the date prefix weighs alike on both sides
    float[] vector = embedder.embedPassages(List.of(dated(turn.time(), candidate.text()))).get(0);
    List<Document> neighbours =
        store.vectorSearch(vector, ownFacts(turn), FactSettings.NEIGHBOURS, -1);
    if (neighbours.isEmpty()) {
      return unlessForgotten(turn.owner(), generation, () -> add(turn, candidate, id))
          ? FactEvent.ADD
          : FactEvent.NONE;
    }
    Double best = neighbours.get(0).getScore();
    if (best != null
        && best >= FactSettings.SAME_FACT
        && Supersession.judge(
                undated(neighbours.get(0).getText()),
                candidate.text(),
                best,
                FactSettings.SAME_FACT)
            == Supersession.Verdict.DUPLICATE) {
      return FactEvent.NONE; // known already; a changed value (not, 2222) goes to the model
    }
    Decision decision = decide(turn, candidate, neighbours);
    if (decision == null
        || !unlessForgotten(turn.owner(), generation, () -> write(turn, candidate, id, decision))) {
      return FactEvent.NONE;
    }
    return decision.event();
  }

  /** The writes of the model's decision on one candidate. */
  private void write(Turn turn, FactCandidate candidate, String id, Decision decision) {
    switch (decision.event()) {
      case ADD -> add(turn, candidate, id);
      case UPDATE -> update(decision.target(), decision.text(), turn);
      case DELETE -> {
        if (contradictions != null && contradictions.enabled()) {
          // the check is on: both kept, the candidate pending, the pair in the owner's inbox
          MemoryRecord pending = add(turn, candidate, id, MemoryStatus.PENDING);
          contradictions.open(
              pending,
              List.of(MemoryRecord.fromDocument(decision.target())),
              null,
              clock.instant());
          return;
        }
        store.updateMetadata(
            decision.target().getId(),
            Map.of(
                MemoryVectorStore.STATUS,
                MemoryStatus.ARCHIVED.name(),
                Lifecycle.ARCHIVED_BY,
                "contradicted",
                "contradicted_by",
                id));
        add(turn, candidate, id);
      }
      case NONE -> {}
    }
  }

  private record Decision(FactEvent event, Document target, String text) {}

  private Decision decide(Turn turn, FactCandidate candidate, List<Document> neighbours) {
    StringBuilder existing = new StringBuilder();
    for (int i = 0; i < neighbours.size(); i++) {
      Document doc = neighbours.get(i);
      existing
          .append(i)
          .append(": [")
          .append(doc.getMetadata().get(MemoryVectorStore.TYPE))
          .append("] ")
          .append(undated(doc.getText()))
          .append('\n');
    }
    String answer =
        ask(
            prompts.decideSystem(),
            FactPrompts.fill(
                prompts.decideUser(),
                Map.of(
                    "type", candidate.type(),
                    "candidate", candidate.text(),
                    "existing", existing.toString())),
            "consolidation of a fact from turn " + turn.turnId());
    if (answer == null) {
      return null;
    }
    Optional<JsonNode> parsed = JsonAnswers.value(answer).filter(JsonNode::isObject);
    FactEvent event =
        parsed.flatMap(n -> text(n, "event")).map(FactConsolidator::event).orElse(null);
    if (event == null) {
      LOG.warn(
          "fact consolidation for turn {}: no usable decision in the model's answer; nothing"
              + " changed: {}",
          turn.turnId(),
          abbreviate(answer));
      return null;
    }
    if (event == FactEvent.ADD || event == FactEvent.NONE) {
      return new Decision(event, null, null);
    }
    Document target =
        parsed.flatMap(n -> text(n, "id")).map(t -> target(t, neighbours)).orElse(null);
    String text = parsed.flatMap(n -> text(n, "text")).map(String::strip).orElse(null);
    if (target == null || (event == FactEvent.UPDATE && text == null)) {
      LOG.warn(
          "fact consolidation for turn {}: {} without a valid id{}; nothing changed: {}",
          turn.turnId(),
          event,
          event == FactEvent.UPDATE ? " and text" : "",
          abbreviate(answer));
      return null;
    }
    return new Decision(event, target, text);
  }

  private static Document target(String id, List<Document> neighbours) {
    String t = id.trim();
    try {
      int index = Integer.parseInt(t);
      if (index >= 0 && index < neighbours.size()) {
        return neighbours.get(index);
      }
    } catch (NumberFormatException e) {
      // the model may have echoed a full record id
    }
    return neighbours.stream().filter(d -> d.getId().equals(t)).findFirst().orElse(null);
  }

  private static FactEvent event(String text) {
    try {
      return FactEvent.valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private void add(Turn turn, FactCandidate candidate, String id) {
    add(turn, candidate, id, MemoryStatus.ACTIVE);
  }

  private MemoryRecord add(Turn turn, FactCandidate candidate, String id, MemoryStatus status) {
    Instant now = clock.instant();
    Map<String, Object> extra = new LinkedHashMap<>(Lifecycle.initial(candidate.importance(), now));
    extra.put("source", "facts");
    MemoryRecord record =
        new MemoryRecord(
            id,
            dated(turn.time(), candidate.text()),
            turn.agent(),
            turn.owner(),
            Scope.PERSONAL,
            status,
            candidate.type(),
            turn.conversationId(),
            turn.turnId(),
            turn.time(),
            extra);
    store.add(List.of(record.toDocument()));
    return record;
  }

  private void update(Document target, String newText, Turn turn) {
    MemoryRecord old = MemoryRecord.fromDocument(target);
    Map<String, Object> extra = new LinkedHashMap<>(old.extra());
    extra.put(
        HISTORY, appendHistory(old.extra().get(HISTORY), undated(old.text()), clock.instant()));
    extra.put("updated_at", clock.millis());
    extra.put("updated_by_turn", turn.turnId());
    MemoryRecord updated =
        new MemoryRecord(
            old.id(),
            dated(turn.time(), newText),
            old.agent(),
            old.owner(),
            old.scope(),
            old.status(),
            old.type(),
            old.conversation(),
            old.turn(),
            old.createdAt(),
            extra);
    store.add(List.of(updated.toDocument())); // an upsert: the new text is embedded again
  }

  /** The earlier texts as a JSON list of {@code {"text", "replaced_at"}}, oldest first. */
  static String appendHistory(Object previous, String oldText, Instant at) {
    ArrayNode list = JSON.createArrayNode();
    if (previous != null) {
      JsonAnswers.value(previous.toString())
          .filter(JsonNode::isArray)
          .ifPresent(arr -> arr.forEach(list::add));
    }
    ObjectNode entry = list.addObject();
    entry.put("text", oldText);
    entry.put("replaced_at", at.toString());
    return JSON.writeValueAsString(list);
  }

  private Filter.Expression ownFacts(Turn turn) {
    return MemoryFilters.and(
        MemoryFilters.and(
            MemoryFilters.and(
                MemoryFilters.eq(MemoryVectorStore.AGENT, turn.agent().value()),
                MemoryFilters.eq(MemoryVectorStore.OWNER, turn.owner().value())),
            MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name())),
        MemoryFilters.in(MemoryVectorStore.TYPE, List.copyOf(FactCandidate.TYPES)));
  }

  private String ask(String system, String user, String what) {
    try {
      return model.complete(system, user, settings.modelTimeout());
    } catch (RuntimeException e) {
      LOG.warn("{}: the chat model failed; nothing changed: {}", what, e.toString());
      return null;
    }
  }

  private static Optional<String> text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull() || !(value.isString() || value.isNumber())) {
      return Optional.empty();
    }
    String text = value.isString() ? value.stringValue() : value.toString();
    return text.isBlank() ? Optional.empty() : Optional.of(text);
  }

  static String factId(Turn turn, String text) {
    String normalized = text.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    String key =
        String.join("\u0000", "fact", turn.agent().value(), turn.owner().value(), normalized);
    return UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString();
  }

  private static String dated(Instant time, String text) {
    return "[" + DAY.format(time) + "] " + text;
  }

  private static String undated(String text) {
    return MemoryRecord.undated(text);
  }

  private static String cut(String text) {
    return text.length() <= MAX_MESSAGE ? text : text.substring(0, MAX_MESSAGE) + " [...]";
  }

  private static String abbreviate(String text) {
    String flat = text.replaceAll("\\s+", " ").strip();
    return flat.length() <= 200 ? flat : flat.substring(0, 200) + "...";
  }
}
