package dev.memstack.tck;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.spi.Turn;
import dev.memstack.spi.TurnRejectedException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A small, correct in-memory provider that the kit's self-test runs: every turn is one PERSONAL
 * entry keyed by agent, owner and turn id, shared facts are TEAM or GLOBAL entries (deleted by the
 * {@value #DELETE_FACT} tool when the caller may change their scope), and recall ranks by the
 * cosine similarity of {@link HashingEmbedder} vectors. A {@link Flaw} breaks one rule on purpose,
 * so the self-test can prove that the kit catches it.
 */
class InMemoryReferenceProvider implements MemoryProvider {

  /** A rule the provider breaks on purpose. */
  enum Flaw {
    NONE,
    /** Attaches its vectors, asked for them, under another model's id. */
    FOREIGN_VECTORS,
    /** Returns every owner's PERSONAL memory of the agent. */
    LEAKS_PERSONAL,
    /** Stores a turn again each time it is delivered. */
    STORES_DUPLICATES,
    /** Keeps answering after close. */
    WORKS_AFTER_CLOSE,
    /** Counts feedback for every owner at once, applies any id, and lets it outweigh relevance. */
    SHARES_FEEDBACK,
    /** Keys a turn by agent and turn id alone, so the same id of a second owner is dropped. */
    KEYS_TURNS_WITHOUT_OWNER,
    /** Deletes a shared fact whatever the caller may write. */
    IGNORES_WRITABLE,
    /** Counts every recall on the coordination, letting its failure through to the host. */
    RECALL_NEEDS_COORDINATION,
    /** Takes a coordination lock per synced turn and never releases it. */
    KEEPS_LOCKS,
    /** Refuses the turns it cannot store with a plain exception, not TurnRejectedException. */
    REJECTS_VAGUELY
  }

  /** A turn whose message holds this is refused for good: the reference store keeps no NUL. */
  static final String UNSTORABLE = "\u0000";

  /** The one tool: deletes a TEAM or GLOBAL fact by id. */
  static final String DELETE_FACT = "delete_fact";

  static final Set<Capability> ALL_CAPABILITIES =
      Set.of(
          Capability.FORGET,
          Capability.PERSONAL_MEMORY,
          Capability.SHARED_MEMORY,
          Capability.RECALLS_TURNS,
          Capability.FEEDBACK,
          Capability.OWNER_PROMPT,
          Capability.REJECTS_TURNS);

  private record Entry(
      String key,
      AgentId agent,
      OwnerKey owner,
      Scope scope,
      String text,
      float[] vector,
      Instant createdAt) {}

  private final ProviderContext context;
  private final Flaw flaw;
  private final Set<Capability> capabilities;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();

  /**
   * Feedback counts by owner (by {@code null} for everybody, with {@link Flaw#SHARES_FEEDBACK}).
   */
  private final Map<Optional<OwnerKey>, Map<String, Long>> feedback = new ConcurrentHashMap<>();

  private final AtomicLong sharedIds = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();

  InMemoryReferenceProvider(ProviderContext context) {
    this(context, Flaw.NONE, ALL_CAPABILITIES);
  }

  InMemoryReferenceProvider(ProviderContext context, Flaw flaw, Set<Capability> capabilities) {
    this.context = Objects.requireNonNull(context, "context");
    this.flaw = Objects.requireNonNull(flaw, "flaw");
    this.capabilities = Set.copyOf(capabilities);
  }

  @Override
  public String id() {
    return context.instanceId();
  }

  @Override
  public Set<Capability> capabilities() {
    return capabilities;
  }

  @Override
  public String systemPromptBlock(AgentId agent) {
    ensureOpen();
    return entries.values().stream()
        .filter(e -> e.scope() != Scope.PERSONAL && visibleToAgent(e, agent))
        .sorted(Comparator.comparing(Entry::createdAt).thenComparing(Entry::key))
        .map(e -> "- " + e.text())
        .collect(Collectors.joining("\n"));
  }

  /** The owner's personal memory of the agent, oldest first, as a standing block. */
  @Override
  public String ownerPromptBlock(AgentId agent, OwnerKey owner) {
    ensureOpen();
    return entries.values().stream()
        .filter(
            e ->
                e.scope() == Scope.PERSONAL
                    && e.agent().equals(agent)
                    && Objects.equals(e.owner(), owner))
        .sorted(Comparator.comparing(Entry::createdAt).thenComparing(Entry::key))
        .map(e -> "- " + e.text())
        .collect(Collectors.joining("\n"));
  }

  @Override
  public Recall prefetch(RecallRequest request) {
    ensureOpen();
    if (flaw == Flaw.RECALL_NEEDS_COORDINATION) {
      context.coordination().addAndGet("recalls", 1);
    }
    boolean blank = request.query().isBlank();
    float[] query = blank ? null : context.embedder().embedQuery(request.query());
    List<RecallItem> items = new ArrayList<>();
    for (Entry e : entries.values()) {
      if (!visibleToAgent(e, request.agent())) {
        continue;
      }
      if (flaw != Flaw.LEAKS_PERSONAL && !request.maySee(e.scope(), e.owner())) {
        continue;
      }
      double similarity = blank ? 0 : cosine(query, e.vector());
      if (blank || similarity > 0.05) {
        long used = feedbackCount(request.owner(), e.key());
        double score =
            flaw == Flaw.SHARES_FEEDBACK
                ? similarity + used
                : similarity * (1 + 0.03 * Math.min(1.0, used / 15.0));
        RecallItem item =
            new RecallItem(
                e.text(), score, e.scope(), e.owner(), id(), e.createdAt(), Map.of("id", e.key()));
        if (request.vectors()) {
          String model =
              flaw == Flaw.FOREIGN_VECTORS ? "another-model" : context.embedder().modelId();
          item = item.withVector(new dev.memstack.spi.RecallVector(model, e.vector()));
        }
        items.add(item);
      }
    }
    items.sort(
        Comparator.comparingDouble(RecallItem::score)
            .reversed()
            .thenComparing(RecallItem::createdAt, Comparator.reverseOrder()));
    return Recall.of(items.subList(0, Math.min(request.limit(), items.size())));
  }

  @Override
  public void syncTurn(Turn turn) {
    ensureOpen();
    if (turn.userMessage().contains(UNSTORABLE) || turn.assistantReply().contains(UNSTORABLE)) {
      if (flaw == Flaw.REJECTS_VAGUELY) {
        throw new IllegalStateException("cannot store this turn");
      }
      throw new TurnRejectedException("the turn holds a NUL character, which this store refuses");
    }
    if (flaw == Flaw.KEEPS_LOCKS) {
      context.coordination().tryLock("turn:" + turn.turnId(), java.time.Duration.ofMinutes(5));
    }
    String text = "user: " + turn.userMessage() + "\nassistant: " + turn.assistantReply();
    String key =
        turn.agent()
            + "/"
            + (flaw == Flaw.KEYS_TURNS_WITHOUT_OWNER ? "" : turn.owner() + "/")
            + turn.turnId()
            + (flaw == Flaw.STORES_DUPLICATES ? "/" + sharedIds.incrementAndGet() : "");
    entries.computeIfAbsent(
        key,
        k ->
            new Entry(
                k, turn.agent(), turn.owner(), Scope.PERSONAL, text, passage(text), turn.time()));
  }

  /** Stores a TEAM or GLOBAL fact, as a provider's memory tool would; returns its id. */
  String writeShared(AgentId agent, Scope scope, String text) {
    ensureOpen();
    if (scope == Scope.PERSONAL) {
      throw new IllegalArgumentException("scope must be TEAM or GLOBAL");
    }
    String key = "shared-" + sharedIds.incrementAndGet();
    entries.put(
        key, new Entry(key, agent, null, scope, text, passage(text), context.clock().instant()));
    context.systemPromptChanged(scope == Scope.GLOBAL ? null : agent);
    return key;
  }

  /** The text of entry {@code key}, or {@code absent}. */
  String describe(String key) {
    Entry e = entries.get(key);
    return e == null ? "absent" : e.scope() + " " + e.text();
  }

  @Override
  public List<ToolSpec> tools() {
    return List.of(
        new ToolSpec(
            DELETE_FACT,
            "Delete one team or global fact by id.",
            "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},"
                + "\"required\":[\"id\"],\"additionalProperties\":false}",
            ToolSpec.Effect.DESTRUCTIVE));
  }

  /** {@value #DELETE_FACT} with {@code {"id":"..."}}: the id is read without a JSON library. */
  @Override
  public String callTool(ToolCall call) {
    ensureOpen();
    if (!call.name().equals(DELETE_FACT)) {
      throw new ToolException(ToolException.Kind.NOT_FOUND, "no tool " + call.name());
    }
    Matcher id = ID_ARGUMENT.matcher(call.arguments());
    if (!id.matches()) {
      throw ToolException.invalidArgument("id", "id is required");
    }
    Entry e = entries.get(id.group(1));
    if (e == null || e.scope() == Scope.PERSONAL || !visibleToAgent(e, call.agent())) {
      throw new ToolException(ToolException.Kind.NOT_FOUND, "no shared fact " + id.group(1));
    }
    if (flaw != Flaw.IGNORES_WRITABLE) {
      call.requireWritable(e.scope());
    }
    entries.remove(e.key());
    return "{\"deleted\":true}";
  }

  private static final Pattern ID_ARGUMENT =
      Pattern.compile("\\s*\\{\\s*\"id\"\\s*:\\s*\"([A-Za-z0-9-]+)\"\\s*}\\s*");

  @Override
  public int feedback(AgentId agent, OwnerKey owner, List<String> ids) {
    ensureOpen();
    Optional<OwnerKey> counted =
        flaw == Flaw.SHARES_FEEDBACK ? Optional.empty() : Optional.of(owner);
    int applied = 0;
    for (String id : new java.util.LinkedHashSet<>(ids)) {
      Entry e = entries.get(id);
      boolean visible =
          e != null
              && visibleToAgent(e, agent)
              && (e.scope() != Scope.PERSONAL || owner.equals(e.owner()));
      if (visible || flaw == Flaw.SHARES_FEEDBACK) {
        feedback.computeIfAbsent(counted, o -> new ConcurrentHashMap<>()).merge(id, 1L, Long::sum);
        applied++;
      }
    }
    return applied;
  }

  private long feedbackCount(OwnerKey owner, String key) {
    if (owner == null && flaw != Flaw.SHARES_FEEDBACK) {
      return 0;
    }
    Optional<OwnerKey> counted =
        flaw == Flaw.SHARES_FEEDBACK ? Optional.empty() : Optional.of(owner);
    return feedback.getOrDefault(counted, Map.of()).getOrDefault(key, 0L);
  }

  @Override
  public long forget(OwnerKey owner) {
    ensureOpen();
    long removed = 0;
    feedback.remove(Optional.of(owner));
    for (Entry e : List.copyOf(entries.values())) {
      if (e.scope() == Scope.PERSONAL
          && owner.equals(e.owner())
          && entries.remove(e.key()) != null) {
        removed++;
      }
    }
    return removed;
  }

  @Override
  public void close() {
    closed.set(true);
  }

  private static boolean visibleToAgent(Entry e, AgentId agent) {
    return e.scope() == Scope.GLOBAL || e.agent().equals(agent);
  }

  private float[] passage(String text) {
    return context.embedder().embed(List.of(text), Embedder.Kind.PASSAGE).get(0);
  }

  private static double cosine(float[] a, float[] b) {
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (int i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
      na += a[i] * a[i];
      nb += b[i] * b[i];
    }
    return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
  }

  private void ensureOpen() {
    if (closed.get() && flaw != Flaw.WORKS_AFTER_CLOSE) {
      throw new IllegalStateException("provider " + id() + " is closed");
    }
  }
}
