package dev.memstack.host.stack;

import dev.memstack.host.outbox.OutboxStats;
import dev.memstack.host.outbox.TurnOutbox;
import dev.memstack.host.outbox.TurnOutboxFullException;
import dev.memstack.host.provider.CircuitBreaker;
import dev.memstack.host.provider.DeadlineCalls;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Turn;
import java.lang.ref.WeakReference;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The memory stack: what every enabled provider contributes to one agent turn, and where finished
 * turns go. A context call asks all providers at once on a bounded pool of daemon threads ({@code
 * memstack.stack.context.call-threads}) for their system-prompt block (unless the joined prompt is
 * cached) and their recall, each under {@code provider-timeout} and all under {@code deadline}; a
 * provider that is late, throws, is busy with earlier calls that never returned, or whose circuit
 * breaker is open is left out and reported, never waited for. Recall is merged by weighted
 * reciprocal rank fusion ({@link StackProperties.Fusion}): scores of different providers cannot be
 * compared, ranks can once weighted by how well each provider recalls; copies of one memory across
 * providers (same text, or one text containing the other) are shown once and count for every
 * provider that found them. Texts lose fence tags, items a request may not see are dropped, and the
 * rest is cut to the char budget and fenced by {@link MemoryContextFence}. Without {@code explain}
 * items carry only the provider's item {@code id} (what feedback names); with it they keep the
 * provider's metadata plus {@code stack.rank} (1-based rank in its provider's answer) and {@code
 * stack.duplicates} (providers whose copy was dropped). Providers that claim {@code OWNER_PROMPT}
 * are asked for the owner's standing memory beside the system prompt, under the same timeout; it is
 * joined into {@link ContextAnswer#ownerPrompt()}, outside the recall budget. {@link #feedback}
 * hands the owner's confirmation of used items to the providers that take it. Turns are stripped of
 * fenced blocks and handed to the {@link TurnOutbox}. Thread-safe.
 */
public final class MemoryStack implements AutoCloseable {

  /**
   * Metadata key of the provider's own id of an item, kept with or without explain: feedback names
   * items by it.
   */
  public static final String ITEM_ID = "id";

  /** Metadata key of an item's rank within its provider's answer (explain only). */
  public static final String RANK = "stack.rank";

  /**
   * Metadata key of the stack's own score of an item (explain only): its fused score over the
   * highest possible one (first in every provider's answer), in 0..1.
   */
  public static final String SCORE = "stack.score";

  /** Metadata key listing the providers whose duplicate copy was dropped (explain only). */
  public static final String DUPLICATES = "stack.duplicates";

  /** The breakers of one provider instance, one per request-path hook. */
  private record Slot(WeakReference<MemoryProvider> provider, Map<String, CircuitBreaker> byHook) {}

  private record Problem(String status, String detail) {}

  private record Ranked(int member, int rank, RecallItem item) {}

  private final StackMembers members;
  private final SystemPromptCache cache;
  private final TurnOutbox outbox;
  private final StackProperties properties;
  private final Clock clock;
  private final DeadlineCalls deadlineCalls;
  private final Map<String, Slot> breakers = new ConcurrentHashMap<>();

  public MemoryStack(
      StackMembers members,
      ProviderCalls calls,
      SystemPromptCache cache,
      TurnOutbox outbox,
      StackProperties properties) {
    this(members, calls, cache, outbox, properties, Clock.systemUTC());
  }

  public MemoryStack(
      StackMembers members,
      ProviderCalls calls,
      SystemPromptCache cache,
      TurnOutbox outbox,
      StackProperties properties,
      Clock clock) {
    this.members = Objects.requireNonNull(members, "members");
    this.cache = Objects.requireNonNull(cache, "cache");
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.properties = Objects.requireNonNull(properties, "properties");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.deadlineCalls =
        new DeadlineCalls(
            Objects.requireNonNull(calls, "calls"),
            properties.context().maxLateCallsPerProvider(),
            properties.context().callThreads());
  }

  /**
   * Answers a context call within {@code memstack.stack.context.deadline} (plus the time to merge
   * the answers), whatever the providers do.
   */
  public ContextAnswer context(ContextQuery query) {
    Objects.requireNonNull(query, "query");
    long start = System.nanoTime();
    long overall = start + properties.context().deadline().toNanos();
    Instant now = clock.instant();
    List<StackMember> stack = members.enabled();
    int limit = query.limit() == 0 ? properties.context().defaultLimit() : query.limit();

    long recallDeadline =
        Math.min(start + properties.context().providerTimeout().toNanos(), overall);
    int askFor = Math.min(RecallRequest.MAX_LIMIT, limit * properties.fusion().overFetch());
    RecallRequest request =
        new RecallRequest(
            query.agent(),
            query.owner(),
            query.conversationId(),
            query.query(),
            askFor,
            now.plusNanos(recallDeadline - start));
    // The request is built (and so checked) before any call starts: every call started below is
    // awaited, so each breaker that let a call through gets its verdict.
    PromptBuild prompt = new PromptBuild(query.agent(), stack, now);
    prompt.start();
    List<StackMember> ownerMembers = ownerPromptMembers(stack);
    List<DeadlineCalls.Call<String>> ownerCalls = new ArrayList<>(ownerMembers.size());
    for (StackMember member : ownerMembers) {
      ownerCalls.add(
          startGuarded(
              member,
              ProviderCalls.OWNER_PROMPT_BLOCK,
              () -> member.provider().ownerPromptBlock(query.agent(), query.owner())));
    }
    List<DeadlineCalls.Call<Recall>> recallCalls = new ArrayList<>(stack.size());
    for (StackMember member : stack) {
      recallCalls.add(
          startGuarded(member, ProviderCalls.PREFETCH, () -> member.provider().prefetch(request)));
    }

    List<ProviderReport> reports = new ArrayList<>(stack.size());
    List<List<RecallItem>> answers = new ArrayList<>(stack.size());
    for (int i = 0; i < stack.size(); i++) {
      StackMember member = stack.get(i);
      DeadlineCalls.Call<Recall> call = recallCalls.get(i);
      if (call == null) {
        reports.add(
            new ProviderReport(member.id(), ProviderReport.OPEN, 0, "circuit breaker open"));
        answers.add(List.of());
        continue;
      }
      DeadlineCalls.Outcome<Recall> outcome = awaitGuarded(member, call, recallDeadline);
      long tookMs = TimeUnit.NANOSECONDS.toMillis(outcome.tookNanos());
      if (outcome.status() != DeadlineCalls.Status.OK) {
        reports.add(new ProviderReport(member.id(), statusOf(outcome), tookMs, outcome.detail()));
        answers.add(List.of());
        continue;
      }
      List<RecallItem> visible = new ArrayList<>();
      int hidden = visibleItems(member, request, outcome.value(), visible);
      reports.add(
          new ProviderReport(
              member.id(),
              ProviderReport.OK,
              tookMs,
              hidden == 0 ? null : "dropped " + hidden + " items the owner may not see"));
      answers.add(visible);
    }

    long promptDeadline = Math.min(start + properties.systemPrompt().timeout().toNanos(), overall);
    String systemPrompt = prompt.finish(promptDeadline);
    Map<String, Problem> problems = new HashMap<>(prompt.problems);
    String ownerPrompt = ownerPrompt(ownerMembers, ownerCalls, promptDeadline, problems);
    reports = withPromptProblems(reports, problems);
    for (String id : members.disabled()) {
      if (stack.stream().noneMatch(m -> m.id().equals(id))) {
        reports.add(new ProviderReport(id, ProviderReport.DISABLED, 0, null));
      }
    }

    List<RecallItem> merged = merge(stack, answers, limit, query.explain());
    List<RecallItem> recall = new ArrayList<>();
    String context = fence(merged, recall);
    return new ContextAnswer(systemPrompt, ownerPrompt, recall, context, reports);
  }

  /** The members that claim {@link Capability#OWNER_PROMPT}. */
  private static List<StackMember> ownerPromptMembers(List<StackMember> stack) {
    List<StackMember> claiming = new ArrayList<>();
    for (StackMember member : stack) {
      if (claimsSafely(member, Capability.OWNER_PROMPT)) {
        claiming.add(member);
      }
    }
    return claiming;
  }

  /** Whether the member claims {@code capability}; a provider whose capabilities() throws, not. */
  private static boolean claimsSafely(StackMember member, Capability capability) {
    try {
      return member.claims(capability);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Joins the owner-prompt blocks in stack order, fence tags stripped, cut to {@code
   * memstack.stack.system-prompt.owner-budget}; a late or failing provider is left out and its
   * problem noted. Not cached here: providers cache their block per owner.
   */
  private String ownerPrompt(
      List<StackMember> members,
      List<DeadlineCalls.Call<String>> calls,
      long deadlineNanos,
      Map<String, Problem> problems) {
    return fitToBudget(
        joinBlocks(members, calls, ProviderCalls.OWNER_PROMPT_BLOCK, deadlineNanos, problems),
        properties.systemPrompt().ownerBudget());
  }

  /**
   * Awaits the prompt-block calls of {@code members} (one per member, {@code null} where the
   * breaker refused) and joins the non-blank blocks in stack order, fence tags stripped; a member
   * left out gets its problem noted under its id, named by {@code hook} (the first problem of a
   * member is kept).
   */
  private String joinBlocks(
      List<StackMember> members,
      List<DeadlineCalls.Call<String>> calls,
      String hook,
      long deadlineNanos,
      Map<String, Problem> problems) {
    List<String> blocks = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      StackMember member = members.get(i);
      DeadlineCalls.Call<String> call = calls.get(i);
      if (call == null) {
        problems.putIfAbsent(
            member.id(), new Problem(ProviderReport.OPEN, hook + ": circuit breaker open"));
        continue;
      }
      DeadlineCalls.Outcome<String> outcome = awaitGuarded(member, call, deadlineNanos);
      if (outcome.status() != DeadlineCalls.Status.OK) {
        problems.putIfAbsent(
            member.id(), new Problem(statusOf(outcome), hook + ": " + outcome.detail()));
        continue;
      }
      String block = MemoryContextFence.stripTags(outcome.value()).strip();
      if (!block.isEmpty()) {
        blocks.add(block);
      }
    }
    return String.join("\n\n", blocks);
  }

  /**
   * Hands the owner's confirmation that recalled items were used to the providers that returned
   * them: {@code used} maps a provider id to the items' {@code id}s. Each call runs under the
   * provider timeout; a provider without {@link Capability#FEEDBACK} applies nothing.
   *
   * @return per provider id, how many ids it applied, or {@code -1} when it does not take feedback
   *     or its call failed
   * @throws IllegalArgumentException naming a provider id that is not in the stack
   */
  public Map<String, Integer> feedback(
      AgentId agent, dev.memstack.spi.OwnerKey owner, Map<String, List<String>> used) {
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(owner, "owner");
    Map<String, StackMember> byId = new LinkedHashMap<>();
    for (StackMember member : members.enabled()) {
      byId.put(member.id(), member);
    }
    for (String id : used.keySet()) {
      if (!byId.containsKey(id)) {
        throw new IllegalArgumentException(
            "provider '" + id + "' is not an enabled provider of the stack " + byId.keySet());
      }
    }
    Map<String, Integer> applied = new LinkedHashMap<>();
    long deadline = System.nanoTime() + properties.context().providerTimeout().toNanos();
    Map<String, DeadlineCalls.Call<Integer>> calls = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> entry : used.entrySet()) {
      StackMember member = byId.get(entry.getKey());
      if (!claimsSafely(member, Capability.FEEDBACK)) {
        applied.put(member.id(), -1);
        continue;
      }
      List<String> ids = List.copyOf(entry.getValue());
      calls.put(
          member.id(),
          deadlineCalls.start(
              member, ProviderCalls.FEEDBACK, () -> member.provider().feedback(agent, owner, ids)));
    }
    for (Map.Entry<String, DeadlineCalls.Call<Integer>> entry : calls.entrySet()) {
      DeadlineCalls.Outcome<Integer> outcome = entry.getValue().await(deadline);
      applied.put(
          entry.getKey(),
          outcome.status() == DeadlineCalls.Status.OK && outcome.value() != null
              ? outcome.value()
              : -1);
    }
    return applied;
  }

  /**
   * The joined system-prompt blocks of {@code agent}: from the cache, or asked from every provider
   * under {@code memstack.stack.system-prompt.timeout}.
   */
  public String systemPrompt(AgentId agent) {
    Objects.requireNonNull(agent, "agent");
    long start = System.nanoTime();
    PromptBuild prompt = new PromptBuild(agent, members.enabled(), clock.instant());
    prompt.start();
    return prompt.finish(start + properties.systemPrompt().timeout().toNanos());
  }

  /**
   * Accepts a finished turn for every enabled provider and returns its id at once; delivery happens
   * in the background. Fenced {@code <memory-context>} blocks are removed from the user message
   * first.
   *
   * @return the submission's turn id, or a new UUID when it has none
   * @throws IllegalArgumentException when the turn is invalid (e.g. both messages empty once the
   *     fenced block is removed, or a malformed turn id)
   * @throws TurnOutboxFullException when a provider's delivery queue is full
   */
  public String submit(TurnSubmission submission) {
    Objects.requireNonNull(submission, "submission");
    String turnId =
        submission.turnId() == null ? UUID.randomUUID().toString() : submission.turnId();
    Turn turn =
        new Turn(
            turnId,
            submission.agent(),
            submission.owner(),
            submission.conversationId(),
            MemoryContextFence.stripBlocks(submission.userMessage()),
            submission.assistantReply(),
            submission.triggerSource(),
            submission.time() == null ? clock.instant() : submission.time());
    outbox.enqueue(turn, members.enabled().stream().map(StackMember::id).toList());
    return turnId;
  }

  /**
   * The circuit breaker state of every enabled provider: {@code closed}, {@code open}, {@code
   * half_open}.
   */
  public Map<String, String> breakerStates() {
    Map<String, String> states = new LinkedHashMap<>();
    for (StackMember member : members.enabled()) {
      states.put(member.id(), breakerState(member).wireName());
    }
    return states;
  }

  /** The turn delivery backlog per provider id. */
  public Map<String, OutboxStats> outboxStats() {
    return outbox.stats();
  }

  /** Stops the call threads; calls still running are interrupted. */
  @Override
  public void close() {
    deadlineCalls.close();
  }

  // ---- calls under breaker and deadline ----

  /**
   * Starts a call if the member's breaker lets it through; {@code null} when the breaker is open.
   */
  private <T> DeadlineCalls.Call<T> startGuarded(
      StackMember member, String hook, java.util.function.Supplier<T> body) {
    CircuitBreaker breaker = breakerFor(member, hook);
    if (!breaker.tryAcquire()) {
      return null;
    }
    DeadlineCalls.Call<T> call = deadlineCalls.start(member, hook, body);
    if (call.refused()) {
      breaker.onNotCalled();
    }
    return call;
  }

  /** Awaits a started call and gives the breaker its verdict. */
  private <T> DeadlineCalls.Outcome<T> awaitGuarded(
      StackMember member, DeadlineCalls.Call<T> call, long deadlineNanos) {
    String hook = call.hook();
    DeadlineCalls.Outcome<T> outcome = call.await(deadlineNanos);
    if (outcome.status() == DeadlineCalls.Status.OK && outcome.value() == null) {
      outcome =
          new DeadlineCalls.Outcome<>(
              DeadlineCalls.Status.ERROR, null, outcome.tookNanos(), "the provider returned null");
    }
    CircuitBreaker breaker = breakerFor(member, hook);
    switch (outcome.status()) {
      case OK -> breaker.onSuccess();
      case BUSY -> {
        // refused before running: startGuarded already released the breaker
      }
      default -> breaker.onFailure();
    }
    return outcome;
  }

  private static String statusOf(DeadlineCalls.Outcome<?> outcome) {
    return outcome.status() == DeadlineCalls.Status.TIMEOUT
        ? ProviderReport.TIMEOUT
        : ProviderReport.ERROR;
  }

  /**
   * The breaker of this provider instance for one hook (a provider whose recall fails may still
   * have a working system-prompt block); a reloaded provider starts with closed breakers.
   */
  private CircuitBreaker breakerFor(StackMember member, String hook) {
    Slot slot =
        breakers.compute(
            member.id(),
            (id, current) ->
                current != null && current.provider().get() == member.provider()
                    ? current
                    : new Slot(new WeakReference<>(member.provider()), new ConcurrentHashMap<>()));
    return slot.byHook()
        .computeIfAbsent(
            hook,
            h ->
                new CircuitBreaker(
                    properties.breaker().failureThreshold(),
                    properties.breaker().openDuration(),
                    System::nanoTime));
  }

  /** The worst state of the member's breakers: open, then half open, then closed. */
  private CircuitBreaker.State breakerState(StackMember member) {
    CircuitBreaker.State worst = CircuitBreaker.State.CLOSED;
    for (String hook : List.of(ProviderCalls.PREFETCH, ProviderCalls.SYSTEM_PROMPT_BLOCK)) {
      CircuitBreaker.State state = breakerFor(member, hook).state();
      if (state == CircuitBreaker.State.OPEN
          || (state == CircuitBreaker.State.HALF_OPEN && worst == CircuitBreaker.State.CLOSED)) {
        worst = state;
      }
    }
    return worst;
  }

  // ---- system prompt ----

  /** One system-prompt lookup: the cached prompt, or a build from the providers' blocks. */
  private final class PromptBuild {
    private final AgentId agent;
    private final List<StackMember> stack;
    private final Instant now;
    private final String membership;
    private final Map<String, Problem> problems = new HashMap<>();
    private String cached;
    private long stamp;
    private List<DeadlineCalls.Call<String>> calls;

    PromptBuild(AgentId agent, List<StackMember> stack, Instant now) {
      this.agent = agent;
      this.stack = stack;
      this.now = now;
      this.membership =
          stack.stream()
              .map(m -> m.id() + "@" + Integer.toHexString(System.identityHashCode(m.provider())))
              .collect(Collectors.joining(","));
    }

    void start() {
      cached = cache.get(agent, membership, now).orElse(null);
      if (cached != null) {
        return;
      }
      stamp = cache.stamp();
      calls = new ArrayList<>(stack.size());
      for (StackMember member : stack) {
        calls.add(
            startGuarded(
                member,
                ProviderCalls.SYSTEM_PROMPT_BLOCK,
                () -> member.provider().systemPromptBlock(agent)));
      }
    }

    String finish(long deadlineNanos) {
      if (cached != null) {
        return cached;
      }
      String prompt =
          fitToBudget(
              joinBlocks(stack, calls, ProviderCalls.SYSTEM_PROMPT_BLOCK, deadlineNanos, problems),
              properties.systemPrompt().budget());
      Instant expiresAt =
          problems.isEmpty() ? null : now.plus(properties.systemPrompt().retryAfter());
      cache.put(agent, membership, prompt, expiresAt, stamp);
      return prompt;
    }
  }

  /** Cuts {@code text} to {@code budget} characters at a line boundary, ending with a marker. */
  static String fitToBudget(String text, int budget) {
    if (text.length() <= budget) {
      return text;
    }
    String marker =
        "[memstack: system prompt cut to "
            + budget
            + " of "
            + text.length()
            + " characters; the rest is left out]";
    int room = budget - marker.length() - 1;
    int cut = text.lastIndexOf('\n', room);
    if (cut <= 0) {
      cut = room;
      if (cut > 0 && Character.isHighSurrogate(text.charAt(cut - 1))) {
        cut--;
      }
    }
    return text.substring(0, Math.max(0, cut)).stripTrailing() + "\n" + marker;
  }

  private static List<ProviderReport> withPromptProblems(
      List<ProviderReport> reports, Map<String, Problem> problems) {
    if (problems.isEmpty()) {
      return reports;
    }
    List<ProviderReport> merged = new ArrayList<>(reports.size());
    for (ProviderReport report : reports) {
      Problem problem = problems.get(report.id());
      if (problem == null) {
        merged.add(report);
      } else if (report.ok()) {
        merged.add(
            new ProviderReport(report.id(), problem.status(), report.tookMs(), problem.detail()));
      } else {
        String detail = report.detail() + "; " + problem.detail();
        merged.add(new ProviderReport(report.id(), report.status(), report.tookMs(), detail));
      }
    }
    return merged;
  }

  // ---- recall ----

  /**
   * Copies the items the request may see into {@code out}, best first, at most {@code limit}, with
   * fence tags removed and the source set to the member id; returns how many were not visible.
   */
  private static int visibleItems(
      StackMember member, RecallRequest request, Recall recall, List<RecallItem> out) {
    int hidden = 0;
    List<RecallItem> items = new ArrayList<>(recall.items());
    items.sort(Comparator.comparingDouble(RecallItem::score).reversed());
    for (RecallItem item : items) {
      if (item == null) {
        continue;
      }
      if (!request.maySee(item.scope(), item.owner())) {
        hidden++;
        continue;
      }
      if (out.size() >= request.limit()) {
        continue;
      }
      String text = MemoryContextFence.stripTags(item.text()).strip();
      if (text.isEmpty()) {
        continue;
      }
      out.add(
          new RecallItem(
              text,
              item.score(),
              item.scope(),
              item.owner(),
              member.id(),
              item.createdAt(),
              item.metadata()));
    }
    return hidden;
  }

  /** One memory as the merge sees it: the best-placed copy and what every copy contributed. */
  private static final class Fused {
    final Ranked first;
    Ranked shown;
    String shownKey;
    final String key;
    double score;
    final Set<String> duplicates = new LinkedHashSet<>();

    Fused(Ranked first, String key) {
      this.first = first;
      this.shown = first;
      this.key = key;
      this.shownKey = key;
    }
  }

  /** Shortest normalised text that may stand for a copy contained in a longer item. */
  private static final int MIN_CONTAINED = 16;

  /**
   * Weighted reciprocal rank fusion of the providers' answers ({@link StackProperties.Fusion}):
   * each item adds {@code weight / (k + rank)} to its memory, copies of one memory (same text, or
   * one containing the other once case, spaces and punctuation are ignored) are one memory shown
   * once as its shortest copy (the memory itself, without another copy's file name or markup), and
   * the memories are taken by fused score (a tie goes to the better provider rank, then to the
   * provider earlier in the stack), at most {@code limit}.
   */
  private List<RecallItem> merge(
      List<StackMember> stack, List<List<RecallItem>> answers, int limit, boolean explain) {
    StackProperties.Fusion fusion = properties.fusion();
    List<Ranked> all = new ArrayList<>();
    for (int m = 0; m < answers.size(); m++) {
      List<RecallItem> answer = answers.get(m);
      for (int r = 0; r < answer.size(); r++) {
        all.add(new Ranked(m, r, answer.get(r)));
      }
    }
    // best contributions first, so that each memory is represented by its best-placed copy
    all.sort(
        Comparator.comparingDouble(
                (Ranked x) -> -contribution(fusion, stack.get(x.member()).id(), x.rank()))
            .thenComparingInt(Ranked::rank)
            .thenComparingInt(Ranked::member));
    List<Fused> memories = new ArrayList<>();
    Map<String, Fused> byKey = new HashMap<>();
    for (Ranked ranked : all) {
      String key = MemoryContextFence.letters(ranked.item().text());
      double contribution = contribution(fusion, stack.get(ranked.member()).id(), ranked.rank());
      Fused copyOf = byKey.get(key);
      if (copyOf == null) {
        for (Fused memory : memories) {
          if (sameMemory(memory.key, key)) {
            copyOf = memory;
            break;
          }
        }
      }
      if (copyOf == null) {
        Fused memory = new Fused(ranked, key);
        memory.score = contribution;
        memories.add(memory);
        byKey.put(key, memory);
      } else {
        if (!copyOf.duplicates.contains(ranked.item().source())
            && ranked.member() != copyOf.first.member()) {
          copyOf.score += contribution; // another provider found it too
        }
        copyOf.duplicates.add(ranked.item().source());
        if (key.length() < copyOf.shownKey.length()) {
          // the shorter copy is the memory itself, without the longer one's file or markup
          copyOf.shown = ranked;
          copyOf.shownKey = key;
        }
      }
    }
    memories.sort(
        Comparator.comparingDouble((Fused f) -> -f.score)
            .thenComparingInt(f -> f.first.rank())
            .thenComparingInt(f -> f.first.member()));
    double best = 0;
    for (int m = 0; m < stack.size(); m++) {
      best += contribution(fusion, stack.get(m).id(), 0);
    }
    List<RecallItem> merged = new ArrayList<>();
    for (Fused memory : memories) {
      if (merged.size() >= limit) {
        break;
      }
      memory.duplicates.add(memory.first.item().source());
      memory.duplicates.remove(memory.shown.item().source());
      merged.add(present(memory, best, explain));
    }
    return merged;
  }

  private static double contribution(StackProperties.Fusion fusion, String provider, int rank) {
    return fusion.weight(provider) / (fusion.k() + rank + 1);
  }

  /** Whether two normalised texts are copies of one memory: equal, or one holds the other. */
  private static boolean sameMemory(String a, String b) {
    if (a.equals(b)) {
      return true;
    }
    String shorter = a.length() <= b.length() ? a : b;
    String longer = shorter == a ? b : a;
    return shorter.length() >= MIN_CONTAINED && longer.contains(shorter);
  }

  private static RecallItem present(Fused memory, double best, boolean explain) {
    RecallItem item = memory.shown.item();
    // Without explain only the provider's item id is kept: feedback names items by it.
    String itemId = item.metadata().get(ITEM_ID);
    Map<String, String> metadata = itemId == null ? Map.of() : Map.of(ITEM_ID, itemId);
    if (explain) {
      Map<String, String> signals = new LinkedHashMap<>(item.metadata());
      signals.put(RANK, Integer.toString(memory.shown.rank() + 1));
      signals.put(
          SCORE, String.format(java.util.Locale.ROOT, "%.4f", best == 0 ? 0 : memory.score / best));
      if (!memory.duplicates.isEmpty()) {
        signals.put(DUPLICATES, String.join(",", memory.duplicates));
      }
      metadata = signals;
    }
    return new RecallItem(
        item.text(),
        item.score(),
        item.scope(),
        item.owner(),
        item.source(),
        item.createdAt(),
        metadata);
  }

  /**
   * Fences as many items as the context budget holds, in order; the first item that does not fit is
   * shortened when at least a short line still fits, and the rest is left out. {@code shown}
   * receives the items as they appear in the block.
   */
  private String fence(List<RecallItem> items, List<RecallItem> shown) {
    int room = properties.context().budget() - MemoryContextFence.overhead();
    List<String> lines = new ArrayList<>();
    for (RecallItem item : items) {
      String line = MemoryContextFence.line(item);
      if (line.length() + 1 <= room) {
        lines.add(line);
        shown.add(item);
        room -= line.length() + 1;
        continue;
      }
      String prefix = MemoryContextFence.line(item.withText("x"));
      int textRoom = room - 1 - (prefix.length() - 1) - 1;
      if (textRoom >= 40) {
        String flat = item.text().replaceAll("\\s+", " ").strip();
        int cut = textRoom;
        if (Character.isHighSurrogate(flat.charAt(cut - 1))) {
          cut--;
        }
        RecallItem shortened = item.withText(flat.substring(0, cut).stripTrailing() + "…");
        lines.add(MemoryContextFence.line(shortened));
        shown.add(shortened);
      }
      break;
    }
    return MemoryContextFence.wrap(lines);
  }
}
