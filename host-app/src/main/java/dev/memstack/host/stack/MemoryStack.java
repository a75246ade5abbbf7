package dev.memstack.host.stack;

import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.provider.CallOutcome;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.RequestCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.outbox.OutboxStats;
import dev.memstack.outbox.TurnOutbox;
import dev.memstack.outbox.TurnOutboxFullException;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Turn;
import dev.memstack.support.ControlCharacters;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The memory stack: what every enabled provider contributes to one agent turn, and where finished
 * turns go. A context call asks all providers at once through {@link RequestCalls} (a bounded pool
 * of daemon threads, {@code memstack.stack.context.call-threads}, and a circuit breaker per
 * provider and hook) for their system-prompt block (unless the joined prompt is cached) and their
 * recall, each under {@code provider-timeout} and all under {@code deadline}; a provider that is
 * late, throws, is busy with earlier calls that never returned, or whose circuit breaker is open is
 * left out and reported, never waited for. The recall calls start first, then the system-prompt
 * lookup and the owner-prompt calls. The recall answers are merged by {@link RecallMerge} (weighted
 * reciprocal rank fusion, copies of one memory across providers shown once, cut to the char budget
 * and fenced by {@link MemoryContextFence}); without {@code explain} items carry only the
 * provider's item {@code id} (what feedback names), with it also the provider's metadata and the
 * stack's signals ({@link #RANK}, {@link #RANKS}, {@link #SCORE}, {@link #DUPLICATES}). Providers
 * that claim {@code OWNER_PROMPT} are asked for the owner's standing memory beside the system
 * prompt, under the same timeout; it is joined into {@link ContextAnswer#ownerPrompt()}, outside
 * the recall budget. {@link #feedback} hands the owner's confirmation of used items, and the items
 * they marked wrong, to the providers that take them; the trust a provider reports for an item
 * ({@link #TRUST_SIGNAL}) moves it once after the ranking score ({@link #TRUST}). {@link #submit}
 * builds the one {@link Turn} of a checked {@link TurnRequest} (fenced blocks already removed),
 * hands it to the {@link TurnOutbox} and records it in the {@link ConversationLog}.
 *
 * <p>This class is the host's application API: the REST controllers, the MCP tools and every other
 * adapter call it with the request records ({@link ContextQuery}, {@link TurnRequest}), which check
 * their fields once, and render its answers ({@link ContextAnswer}) as they are. Thread-safe; holds
 * no threads of its own.
 */
public final class MemoryStack {

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

  /**
   * Metadata key of every rank behind an item's fused score (explain only): {@code provider:rank}
   * for each provider that returned a copy of the memory (its 1-based rank in that provider's
   * answer), comma-separated, the provider of the copy that added most first.
   */
  public static final String RANKS = "stack.ranks";

  /**
   * Metadata key of the host's cosine of the item to the query under its embedding model, the best
   * of the memory's copies (explain only; absent when the item was not scored).
   */
  public static final String RELEVANCE = "stack.relevance";

  /**
   * Metadata key of the item's 1-based rank by {@link #RELEVANCE} among the scored memories of the
   * answer (explain only).
   */
  public static final String RELEVANCE_RANK = "stack.relevanceRank";

  /**
   * Metadata key of the ranking that ordered the answer (explain only): {@code learned:<model>} or
   * {@code fusion} (see health's {@code ranking} for why).
   */
  public static final String RANKING = "stack.ranking";

  /** Metadata key of the learned ranking's score of an item (explain only, learned ranking). */
  public static final String LEARNED = "stack.learned";

  /**
   * Metadata key under which a provider reports the owner's trust in an item, a number from -1
   * (distrusted) to 1 (trusted), 0 for none: the stack moves the item by it after the ranking score
   * ({@code memstack.stack.ranking.trust-weight}). The vector provider reports it; any provider
   * may.
   */
  public static final String TRUST_SIGNAL = "signal.trust";

  /** Metadata key of the trust the stack applied to an item, -1..1 (explain only). */
  public static final String TRUST = "stack.trust";

  /**
   * Metadata key of what the trust added to the item's ranking score (explain only): {@code
   * trust-weight × σ × trust}, σ the standard deviation of the ranking scores of the call.
   */
  public static final String TRUST_ADJUSTMENT = "stack.trust.adjustment";

  /**
   * Prefix of the metadata keys of the ranking features (explain only): {@code
   * stack.feature.<name>} holds the feature's value and, with a learned model, its contribution to
   * the item's score ({@code "0.8123 +0.4210"}).
   */
  public static final String FEATURE = "stack.feature.";

  /** Metadata key listing the providers whose duplicate copy was dropped (explain only). */
  public static final String DUPLICATES = "stack.duplicates";

  /** Passage vectors of items that came without one, kept by text across calls. */
  private static final int RELEVANCE_CACHE = 4096;

  private static final Logger log = LoggerFactory.getLogger(MemoryStack.class);

  private record Problem(String status, String detail) {}

  private final StackMembers members;
  private final SystemPromptCache cache;
  private final TurnOutbox outbox;
  private final ConversationLog conversations;
  private final StackProperties properties;
  private final Clock clock;
  private final RequestCalls calls;
  private final RecallMerge recallMerge;
  private final StackRelevance relevance;
  private final TurnActivity activity;

  public MemoryStack(
      StackMembers members,
      RequestCalls calls,
      SystemPromptCache cache,
      TurnOutbox outbox,
      ConversationLog conversations,
      StackProperties properties,
      Clock clock) {
    this.members = Objects.requireNonNull(members, "members");
    this.cache = Objects.requireNonNull(cache, "cache");
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.conversations = Objects.requireNonNull(conversations, "conversations");
    this.properties = Objects.requireNonNull(properties, "properties");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.calls = Objects.requireNonNull(calls, "calls");
    this.recallMerge =
        new RecallMerge(
            properties.fusion(),
            properties.context().budget(),
            LearnedRanking.load(
                properties.ranking().model(),
                members.queryEmbedder().map(e -> e.modelId()).orElse(null)),
            properties.ranking().trustWeight());
    this.activity = new TurnActivity(clock);
    this.relevance =
        new StackRelevance(
            members.queryEmbedder().orElse(null),
            properties.fusion().relevanceEmbeds(),
            RELEVANCE_CACHE,
            System::nanoTime);
  }

  /**
   * Answers a context call within {@code memstack.stack.context.deadline} (plus the time to merge
   * the answers), whatever the providers do.
   *
   * @throws InvalidRequestException (field {@code providers}) when the query names a provider
   *     instance that is not configured
   */
  public ContextAnswer context(ContextQuery query) {
    return answer(query, false);
  }

  /**
   * What {@link #context} would answer to {@code query} now, changing nothing: every provider is
   * asked with {@link RecallRequest#preview()} (so none tracks the recall), and the joined system
   * prompt is not cached. The calls count in the circuit breakers and metrics as any call does.
   *
   * @throws InvalidRequestException as {@link #context}
   */
  public ContextAnswer preview(ContextQuery query) {
    return answer(query, true);
  }

  private ContextAnswer answer(ContextQuery query, boolean preview) {
    Objects.requireNonNull(query, "query");
    long start = System.nanoTime();
    long overall = start + properties.context().deadline().toNanos();
    Instant now = clock.instant();
    List<StackMember> all = members.enabled();
    checkProviders(query.providers(), all);
    List<StackMember> stack = recalling(all, query.providers());
    int limit = query.limit() == 0 ? properties.context().defaultLimit() : query.limit();

    long recallDeadline =
        Math.min(start + properties.context().providerTimeout().toNanos(), overall);
    boolean learned = recallMerge.ranking().active();
    int askFor =
        Math.min(
            RecallRequest.MAX_LIMIT,
            Math.max(
                limit * properties.fusion().overFetch(),
                learned ? properties.ranking().candidates() : 0));
    boolean scoring = properties.fusion().relevanceWeight() > 0 || learned || query.explain();
    RecallRequest request =
        new RecallRequest(
            query.agent(),
            query.owner(),
            query.conversationId(),
            query.query(),
            askFor,
            now.plusNanos(recallDeadline - start),
            scoring,
            preview);
    // The request is built (and so checked) before any call starts: every call started below is
    // awaited, so each breaker that let a call through gets its verdict. The recall calls, the
    // longest, start first; the prompt lookups and owner-prompt calls go while they run.
    List<RequestCalls.Pending<Recall>> recallCalls = new ArrayList<>(stack.size());
    // the index of each recall call that has ended, in the order they end
    BlockingQueue<Integer> ended = new ArrayBlockingQueue<>(Math.max(1, stack.size()));
    for (StackMember member : stack) {
      RequestCalls.Pending<Recall> pending =
          calls.start(member, ProviderCalls.PREFETCH, () -> member.provider().prefetch(request));
      int index = recallCalls.size();
      recallCalls.add(pending);
      pending.whenDone(() -> ended.add(index));
    }
    PromptBuild prompt = new PromptBuild(query.agent(), all, now, !preview);
    prompt.start();
    List<StackMember> ownerMembers = ownerPromptMembers(all);
    List<RequestCalls.Pending<String>> ownerCalls = new ArrayList<>(ownerMembers.size());
    for (StackMember member : ownerMembers) {
      ownerCalls.add(
          calls.start(
              member,
              ProviderCalls.OWNER_PROMPT_BLOCK,
              () -> member.provider().ownerPromptBlock(query.agent(), query.owner())));
    }

    // this thread would only wait now: it makes the query's vector while the providers search by
    // keywords, and they take it from the embedder's query cache when they need it
    float[] queryVector = scoring ? relevance.embedQuery(query.query()) : null;

    // each candidate text is read for the ranking's cues once a call; an answer's texts are read
    // as soon as it comes, while slower providers still search
    Map<String, QuestionCues> parsed = new HashMap<>();
    Function<String, QuestionCues> cues = text -> parsed.computeIfAbsent(text, QuestionCues::of);
    ProviderReport[] reportOf = new ProviderReport[stack.size()];
    List<List<RecallItem>> answers = new ArrayList<>(Collections.nCopies(stack.size(), null));
    for (int taken = 0; taken < stack.size(); taken++) {
      Integer next = nextEnded(ended, recallDeadline);
      if (next == null) {
        break; // the rest are late: awaited below, each gets its timeout
      }
      collect(
          stack.get(next), request, recallCalls.get(next), recallDeadline, next, reportOf, answers);
      if (learned) {
        answers.get(next).forEach(item -> cues.apply(item.text()));
      }
    }
    List<ProviderReport> reports = new ArrayList<>(stack.size());
    for (int i = 0; i < stack.size(); i++) {
      if (reportOf[i] == null) {
        collect(stack.get(i), request, recallCalls.get(i), recallDeadline, i, reportOf, answers);
      }
      reports.add(reportOf[i]);
    }

    long promptDeadline = Math.min(start + properties.systemPrompt().timeout().toNanos(), overall);
    String systemPrompt = prompt.finish(promptDeadline);
    Map<String, Problem> problems = new HashMap<>(prompt.problems);
    String ownerPrompt = ownerPrompt(ownerMembers, ownerCalls, promptDeadline, problems);
    for (StackMember member : all) {
      if (!stack.contains(member)) {
        reports.add(new ProviderReport(member.id(), ProviderReport.SKIPPED, 0, null));
      }
    }
    reports = withPromptProblems(reports, problems);
    for (String id : members.disabled()) {
      if (all.stream().noneMatch(m -> m.id().equals(id))) {
        reports.add(new ProviderReport(id, ProviderReport.DISABLED, 0, null));
      }
    }

    StackRelevance.Scores relevance =
        scoring
            ? this.relevance.score(
                query.query(), queryVector, speakerNames(query, answers, cues), answers, overall)
            : null;
    List<RecallItem> merged =
        recallMerge.merge(stack, answers, relevance, limit, query.explain(), query.query(), cues);
    List<RecallItem> recall = new ArrayList<>();
    String context = recallMerge.fence(merged, recall);
    return new ContextAnswer(
        systemPrompt,
        ownerPrompt,
        recall.stream().map(RecalledMemory::of).toList(),
        context,
        reports);
  }

  /** The index of the next recall call to end, or {@code null} when none ends by the deadline. */
  private static Integer nextEnded(BlockingQueue<Integer> ended, long deadlineNanos) {
    try {
      return ended.poll(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the awaits that follow report the interruption
      return null;
    }
  }

  /** Awaits recall call {@code i} and puts its report and visible items at {@code i}. */
  private static void collect(
      StackMember member,
      RecallRequest request,
      RequestCalls.Pending<Recall> call,
      long deadlineNanos,
      int i,
      ProviderReport[] reports,
      List<List<RecallItem>> answers) {
    CallOutcome<Recall> outcome = call.await(deadlineNanos);
    long tookMs = TimeUnit.NANOSECONDS.toMillis(outcome.tookNanos());
    if (!outcome.ok()) {
      reports[i] = new ProviderReport(member.id(), statusOf(outcome), tookMs, outcome.detail());
      answers.set(i, List.of());
      return;
    }
    List<RecallItem> visible = new ArrayList<>();
    int hidden = RecallMerge.visibleItems(member, request, outcome.value(), visible);
    reports[i] =
        new ProviderReport(
            member.id(),
            ProviderReport.OK,
            tookMs,
            hidden == 0 ? null : "dropped " + hidden + " items the owner may not see");
    answers.set(i, visible);
  }

  /**
   * The words of the question that name the speakers it asks about, when the ranking reads the
   * cosine without the speakers (the model's features name it, or explain shows every feature);
   * {@code null} otherwise.
   */
  private List<String> speakerNames(
      ContextQuery query, List<List<RecallItem>> answers, Function<String, QuestionCues> cues) {
    if (!query.explain() && !recallMerge.ranking().reads(RankingFeatures.UNNAMED)) {
      return null;
    }
    List<String> texts = new ArrayList<>();
    answers.forEach(answer -> answer.forEach(item -> texts.add(item.text())));
    return AskedSpeakers.speakerNames(query.query(), texts, cues);
  }

  /**
   * Checks that every id of {@code providers} is a configured provider instance (running or not).
   */
  private void checkProviders(Set<String> providers, List<StackMember> enabled) {
    if (providers == null) {
      return;
    }
    Set<String> known = new TreeSet<>(members.disabled());
    enabled.forEach(m -> known.add(m.id()));
    for (String id : new TreeSet<>(providers)) {
      if (!known.contains(id)) {
        throw new InvalidRequestException(
            "providers",
            "providers names '"
                + id
                + "', which is not a configured provider instance (configured: "
                + String.join(", ", known)
                + ")");
      }
    }
  }

  /** The members a call recalls from: all, or those {@code providers} names. */
  private static List<StackMember> recalling(List<StackMember> all, Set<String> providers) {
    if (providers == null) {
      return all;
    }
    List<StackMember> chosen = new ArrayList<>();
    for (StackMember member : all) {
      if (providers.contains(member.id())) {
        chosen.add(member);
      }
    }
    return chosen;
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
      List<RequestCalls.Pending<String>> pending,
      long deadlineNanos,
      Map<String, Problem> problems) {
    return fitToBudget(
        joinBlocks(members, pending, ProviderCalls.OWNER_PROMPT_BLOCK, deadlineNanos, problems),
        properties.systemPrompt().ownerBudget());
  }

  /**
   * Awaits the prompt-block calls of {@code members} (one per member) and joins the non-blank
   * blocks in stack order, fence tags stripped; a member left out gets its problem noted under its
   * id, named by {@code hook} (the first problem of a member is kept).
   */
  private String joinBlocks(
      List<StackMember> members,
      List<RequestCalls.Pending<String>> pending,
      String hook,
      long deadlineNanos,
      Map<String, Problem> problems) {
    List<String> blocks = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      StackMember member = members.get(i);
      CallOutcome<String> outcome = pending.get(i).await(deadlineNanos);
      if (!outcome.ok()) {
        problems.putIfAbsent(
            member.id(), new Problem(statusOf(outcome), hook + ": " + outcome.detail()));
        continue;
      }
      String block = MemoryContextFence.stripTags(ControlCharacters.strip(outcome.value())).strip();
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
   * @throws InvalidRequestException (field {@code used}) naming a provider id that is not in the
   *     stack
   */
  public Map<String, Integer> feedback(
      AgentId agent, OwnerKey owner, Map<String, List<String>> used) {
    return feedback(agent, owner, used, Map.of()).used();
  }

  /**
   * What a feedback call applied: per provider id, how many of the {@code used} ids and how many of
   * the {@code wrong} ids it applied, or {@code -1} when it does not take that kind of feedback or
   * its call failed. A provider named in one list only appears in that list's map.
   */
  public record FeedbackApplied(Map<String, Integer> used, Map<String, Integer> wrong) {}

  /**
   * Hands the owner's feedback on recalled items to the providers that returned them, all calls at
   * once under one provider timeout: {@code used} (the items were used: {@link
   * dev.memstack.spi.MemoryProvider#feedback}, to providers with {@link Capability#FEEDBACK}) and
   * {@code wrong} (the owner marked them wrong: {@link dev.memstack.spi.MemoryProvider#wrong}, to
   * providers with {@link Capability#TRUST}), each mapping a provider id to the items' {@code id}s.
   * A provider without the capability applies nothing ({@code -1}).
   *
   * @throws InvalidRequestException (field {@code used} or {@code wrong}) naming a provider id that
   *     is not in the stack
   */
  public FeedbackApplied feedback(
      AgentId agent,
      OwnerKey owner,
      Map<String, List<String>> used,
      Map<String, List<String>> wrong) {
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(owner, "owner");
    Map<String, StackMember> byId = new LinkedHashMap<>();
    for (StackMember member : members.enabled()) {
      byId.put(member.id(), member);
    }
    checkMembers("used", used, byId);
    checkMembers("wrong", wrong, byId);
    long deadline = System.nanoTime() + properties.context().providerTimeout().toNanos();
    Map<String, Integer> usedApplied = new LinkedHashMap<>();
    Map<String, Integer> wrongApplied = new LinkedHashMap<>();
    Map<String, RequestCalls.Pending<Integer>> usedCalls =
        startFeedback(
            used,
            byId,
            Capability.FEEDBACK,
            ProviderCalls.FEEDBACK,
            usedApplied,
            (member, ids) -> member.provider().feedback(agent, owner, ids));
    Map<String, RequestCalls.Pending<Integer>> wrongCalls =
        startFeedback(
            wrong,
            byId,
            Capability.TRUST,
            ProviderCalls.WRONG,
            wrongApplied,
            (member, ids) -> member.provider().wrong(agent, owner, ids));
    awaitFeedback(usedCalls, deadline, usedApplied);
    awaitFeedback(wrongCalls, deadline, wrongApplied);
    return new FeedbackApplied(usedApplied, wrongApplied);
  }

  private static void checkMembers(
      String field, Map<String, List<String>> items, Map<String, StackMember> byId) {
    for (String id : items.keySet()) {
      if (!byId.containsKey(id)) {
        throw new InvalidRequestException(
            field,
            "provider '" + id + "' is not an enabled provider of the stack " + byId.keySet());
      }
    }
  }

  /** Starts one call per provider that claims {@code capability}; the others apply -1. */
  private Map<String, RequestCalls.Pending<Integer>> startFeedback(
      Map<String, List<String>> items,
      Map<String, StackMember> byId,
      Capability capability,
      String callName,
      Map<String, Integer> applied,
      java.util.function.BiFunction<StackMember, List<String>, Integer> call) {
    Map<String, RequestCalls.Pending<Integer>> pending = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> entry : items.entrySet()) {
      StackMember member = byId.get(entry.getKey());
      applied.put(member.id(), -1); // until the call says otherwise
      if (!claimsSafely(member, capability)) {
        continue;
      }
      List<String> ids = List.copyOf(entry.getValue());
      pending.put(
          member.id(), calls.startWithoutBreaker(member, callName, () -> call.apply(member, ids)));
    }
    return pending;
  }

  private static void awaitFeedback(
      Map<String, RequestCalls.Pending<Integer>> pending,
      long deadline,
      Map<String, Integer> applied) {
    for (Map.Entry<String, RequestCalls.Pending<Integer>> entry : pending.entrySet()) {
      CallOutcome<Integer> outcome = entry.getValue().await(deadline);
      applied.put(entry.getKey(), outcome.ok() ? outcome.value() : -1);
    }
  }

  /**
   * The joined system-prompt blocks of {@code agent}: from the cache, or asked from every provider
   * under {@code memstack.stack.system-prompt.timeout}.
   */
  public String systemPrompt(AgentId agent) {
    Objects.requireNonNull(agent, "agent");
    long start = System.nanoTime();
    PromptBuild prompt = new PromptBuild(agent, members.enabled(), clock.instant(), true);
    prompt.start();
    return prompt.finish(start + properties.systemPrompt().timeout().toNanos());
  }

  /**
   * Accepts a finished turn for every enabled provider and returns its id at once; delivery happens
   * in the background. The turn is built once from the checked request (its id generated when it
   * has none, its time the stack's clock when it has none), handed to the turn outbox and recorded
   * in the conversation log (a log failure is logged, not thrown: the turn is already on its way).
   *
   * @return the turn's id
   * @throws TurnOutboxFullException when a provider's delivery queue is full
   */
  public String submit(TurnRequest request) {
    Objects.requireNonNull(request, "request");
    String turnId = request.turnId() == null ? UUID.randomUUID().toString() : request.turnId();
    Turn turn =
        InvalidRequestException.check(
            "body",
            () ->
                new Turn(
                    turnId,
                    request.agent(),
                    request.owner(),
                    request.conversationId(),
                    request.userMessage(),
                    request.assistantReply(),
                    request.triggerSource(),
                    request.time() == null ? clock.instant() : request.time()));
    outbox.enqueue(turn, members.enabled().stream().map(StackMember::id).toList());
    activity.accepted(turn.agent());
    try {
      conversations.append(turn);
    } catch (RuntimeException e) {
      log.warn("Conversation log could not record turn {}: {}", turnId, e.toString());
    }
    return turnId;
  }

  /** The turns this host accepted, per agent, for statistics. */
  public TurnActivity activity() {
    return activity;
  }

  /**
   * The circuit breaker state of every enabled provider: {@code closed}, {@code open}, {@code
   * half_open}.
   */
  public Map<String, String> breakerStates() {
    return calls.breakerStates();
  }

  /**
   * The ranking in use: {@code mode} ({@code learned} or {@code fusion}), the host's embedding
   * model, and the learned model's name and source or why the fusion ranks.
   */
  public Map<String, String> rankingStatus() {
    LearnedRanking ranking = recallMerge.ranking();
    Map<String, String> status = new LinkedHashMap<>();
    status.put("mode", ranking.active() ? "learned" : "fusion");
    members.queryEmbedder().ifPresent(e -> status.put("embeddingModel", e.modelId()));
    if (ranking.active()) {
      status.put("model", ranking.model().name());
      status.put("source", ranking.source());
    } else {
      status.put("reason", ranking.reason());
    }
    return status;
  }

  /** The turn delivery backlog per provider id. */
  public Map<String, OutboxStats> outboxStats() {
    return outbox.stats();
  }

  /** The report status of a call that did not answer. */
  private static String statusOf(CallOutcome<?> outcome) {
    return switch (outcome.status()) {
      case OPEN, UNAVAILABLE -> ProviderReport.OPEN;
      case TIMEOUT -> ProviderReport.TIMEOUT;
      default -> ProviderReport.ERROR;
    };
  }

  // ---- system prompt ----

  /** One system-prompt lookup: the cached prompt, or a build from the providers' blocks. */
  private final class PromptBuild {
    private final AgentId agent;
    private final List<StackMember> stack;
    private final Instant now;
    private final String membership;
    private final boolean keep;
    private final Map<String, Problem> problems = new HashMap<>();
    private String cached;
    private long stamp;
    private List<RequestCalls.Pending<String>> pending;

    /** {@code keep}: whether a prompt built from the providers' blocks is cached. */
    PromptBuild(AgentId agent, List<StackMember> stack, Instant now, boolean keep) {
      this.agent = agent;
      this.stack = stack;
      this.now = now;
      this.keep = keep;
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
      pending = new ArrayList<>(stack.size());
      for (StackMember member : stack) {
        pending.add(
            calls.start(
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
              joinBlocks(
                  stack, pending, ProviderCalls.SYSTEM_PROMPT_BLOCK, deadlineNanos, problems),
              properties.systemPrompt().budget());
      Instant expiresAt =
          problems.isEmpty() ? null : now.plus(properties.systemPrompt().retryAfter());
      if (keep) {
        cache.put(agent, membership, prompt, expiresAt, stamp);
      }
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
      } else if (report.ok() || ProviderReport.SKIPPED.equals(report.status())) {
        merged.add(
            new ProviderReport(report.id(), problem.status(), report.tookMs(), problem.detail()));
      } else {
        String detail = report.detail() + "; " + problem.detail();
        merged.add(new ProviderReport(report.id(), report.status(), report.tookMs(), detail));
      }
    }
    return merged;
  }
}
