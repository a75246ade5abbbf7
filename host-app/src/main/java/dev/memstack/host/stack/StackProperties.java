package dev.memstack.host.stack;

import static dev.memstack.host.SettingChecks.atLeast;
import static dev.memstack.host.SettingChecks.between;
import static dev.memstack.host.SettingChecks.positive;

import dev.memstack.spi.RecallRequest;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the memory stack ({@code memstack.stack.*}). A missing value takes its default; a
 * value out of range stops the host at start with a message naming the key.
 *
 * @param context Deadlines, budget and limits of context calls.
 * @param systemPrompt Budget and caching of the joined system-prompt blocks.
 * @param breaker The circuit breaker kept per provider.
 * @param fusion How the providers' recall lists are merged into one ranking.
 * @param ranking The learned ranking stage that orders the merged candidates.
 */
@ConfigurationProperties("memstack.stack")
public record StackProperties(
    @DefaultValue Context context,
    @DefaultValue SystemPrompt systemPrompt,
    @DefaultValue Breaker breaker,
    @DefaultValue Fusion fusion,
    @DefaultValue Ranking ranking) {

  public StackProperties {
    ranking = ranking == null ? Ranking.defaults() : ranking;
    fusion = fusion == null ? Fusion.defaults() : fusion;
    context = context == null ? Context.defaults() : context;
    systemPrompt = systemPrompt == null ? SystemPrompt.defaults() : systemPrompt;
    breaker = breaker == null ? Breaker.defaults() : breaker;
  }

  /** Every setting at its default. */
  public static StackProperties defaults() {
    return new StackProperties(null, null, null, null, null);
  }

  /**
   * Context calls ({@code memstack.stack.context.*}).
   *
   * @param deadline Longest a context call waits for all providers together; a provider not done by
   *     then is left out and reported as 'timeout'.
   * @param providerTimeout Longest the stack waits for one provider's recall (capped by the
   *     deadline); also handed to the provider as 'RecallRequest.deadline'.
   * @param budget Most characters of the fenced memory-context block, header included.
   * @param defaultLimit Number of recall items when a call does not ask for a number.
   * @param maxLateCallsPerProvider Most calls of one provider instance that may still be running
   *     after the stack stopped waiting for them; past it the provider is reported as 'error'
   *     (busy) without being called until one returns, so a provider that hangs cannot use up the
   *     call threads.
   * @param callThreads Most threads that run provider calls for context calls, all providers
   *     together; a call that finds none free is reported as 'error' (busy).
   */
  public record Context(
      @DefaultValue("1500ms") Duration deadline,
      @DefaultValue("1000ms") Duration providerTimeout,
      @DefaultValue("8000") int budget,
      @DefaultValue("10") int defaultLimit,
      @DefaultValue("8") int maxLateCallsPerProvider,
      @DefaultValue("256") int callThreads) {

    public Context {
      deadline = positive(deadline, Duration.ofMillis(1500), "memstack.stack.context.deadline");
      providerTimeout =
          positive(
              providerTimeout, Duration.ofMillis(1000), "memstack.stack.context.provider-timeout");
      atLeast(budget, 200, "memstack.stack.context.budget");
      between(defaultLimit, 1, RecallRequest.MAX_LIMIT, "memstack.stack.context.default-limit");
      atLeast(maxLateCallsPerProvider, 1, "memstack.stack.context.max-late-calls-per-provider");
      atLeast(callThreads, 1, "memstack.stack.context.call-threads");
    }

    public static Context defaults() {
      return new Context(null, null, 8000, 10, 8, 256);
    }
  }

  /**
   * The merge of the providers' recall lists ({@code memstack.stack.fusion.*}): weighted reciprocal
   * rank fusion, {@code Σ weight(provider) / (k + rank)} over the providers that returned an item,
   * where copies of one memory (the same text, or one text containing the other, ignoring case,
   * spaces and punctuation) count as one item. Scores of different providers do not compare; ranks
   * do, once weighted by how well each provider recalls.
   *
   * @param k The rank offset: larger values flatten the difference between first and later ranks.
   * @param weights Weight of each provider instance by id, in 0..10; a provider not listed weighs
   *     1. The shipped defaults were measured on a real chat set (bench/RESULTS.md, "Recall on
   *     REALTALK").
   * @param overFetch Each provider is asked for this many times the items the answer shows (at most
   *     200), so that the fusion chooses among more than each provider's first few.
   * @param relevanceWeight Weight of the host's own list: every candidate of every provider ranked
   *     by its cosine to the query under the host's embedding model (the vector its provider
   *     attached, or the item's text embedded by the host), in 0..10; 0 turns host scoring off.
   * @param relevanceK The rank offset of the host's relevance list.
   * @param relevanceEmbeds Most items without an attached vector whose text the host embeds per
   *     context call (one at a time, only while the call's deadline leaves time; vectors are kept
   *     by text for later calls); 0 scores only items that carry a vector.
   */
  public record Fusion(
      @DefaultValue("10") double k,
      @DefaultValue java.util.Map<String, Double> weights,
      @DefaultValue("3") int overFetch,
      @DefaultValue("0") double relevanceWeight,
      @DefaultValue("20") double relevanceK,
      @DefaultValue("8") int relevanceEmbeds) {

    public Fusion {
      if (overFetch == 0) {
        overFetch = 3;
      }
      between(overFetch, 1, 10, "memstack.stack.fusion.over-fetch");
      between(k, 1, 1000, "memstack.stack.fusion.k");
      between(relevanceWeight, 0, 10, "memstack.stack.fusion.relevance-weight");
      if (relevanceK == 0) {
        relevanceK = 20;
      }
      between(relevanceK, 1, 1000, "memstack.stack.fusion.relevance-k");
      between(relevanceEmbeds, 0, 50, "memstack.stack.fusion.relevance-embeds");
      weights = weights == null ? java.util.Map.of() : java.util.Map.copyOf(weights);
      weights.forEach(
          (id, weight) -> {
            if (weight == null || !(weight >= 0 && weight <= 10)) {
              throw new IllegalArgumentException(
                  "memstack.stack.fusion.weights." + id + " must be 0-10, got: " + weight);
            }
          });
    }

    /** The weight of a provider instance: its configured weight, or 1. */
    public double weight(String providerId) {
      return weights.getOrDefault(providerId, 1.0);
    }

    public static Fusion defaults() {
      return new Fusion(10, null, 3, 0, 20, 8);
    }
  }

  /**
   * The joined system prompt ({@code memstack.stack.system-prompt.*}).
   *
   * @param budget Most characters of the joined blocks; longer prompts are cut at a line boundary
   *     and end with a visible marker.
   * @param timeout Longest the stack waits for one provider's block (capped by the context
   *     deadline).
   * @param retryAfter How long a prompt that lacks the block of a failed provider is reused before
   *     the stack asks the providers again; a complete prompt is kept until a provider reports a
   *     change.
   * @param ownerBudget Most characters of the joined owner-prompt blocks (the owner's standing
   *     memory, e.g. PROFILE.md and MEMORY.md); longer ones are cut at a line boundary with a
   *     visible marker. Separate from the recall budget, so the owner's files never push out
   *     recalled memories and are never cut by relevance.
   */
  public record SystemPrompt(
      @DefaultValue("24000") int budget,
      @DefaultValue("1000ms") Duration timeout,
      @DefaultValue("2s") Duration retryAfter,
      @DefaultValue("16000") int ownerBudget) {

    public SystemPrompt {
      atLeast(budget, 200, "memstack.stack.system-prompt.budget");
      if (ownerBudget == 0) {
        ownerBudget = 16_000;
      }
      atLeast(ownerBudget, 200, "memstack.stack.system-prompt.owner-budget");
      timeout = positive(timeout, Duration.ofMillis(1000), "memstack.stack.system-prompt.timeout");
      retryAfter =
          positive(retryAfter, Duration.ofSeconds(2), "memstack.stack.system-prompt.retry-after");
    }

    public static SystemPrompt defaults() {
      return new SystemPrompt(24_000, null, null, 16_000);
    }
  }

  /**
   * The circuit breaker per provider ({@code memstack.stack.breaker.*}); it counts failures and
   * timeouts of request-path calls (system-prompt blocks and recall).
   *
   * @param failureThreshold Consecutive failures or timeouts that open the breaker.
   * @param openDuration How long an open breaker refuses calls before one trial call is let
   *     through.
   */
  public record Breaker(
      @DefaultValue("5") int failureThreshold, @DefaultValue("30s") Duration openDuration) {

    public Breaker {
      atLeast(failureThreshold, 1, "memstack.stack.breaker.failure-threshold");
      openDuration =
          positive(openDuration, Duration.ofSeconds(30), "memstack.stack.breaker.open-duration");
    }

    public static Breaker defaults() {
      return new Breaker(5, null);
    }
  }

  /**
   * The learned ranking stage ({@code memstack.stack.ranking.*}): a model trained on labelled
   * conversations orders every provider's candidates by features the host computes and the signals
   * providers report; when the model cannot be used the stack ranks by the fusion and says so in
   * health and {@code explain}.
   *
   * @param model The model file: empty for the model shipped inside the host (trained on REALTALK
   *     with bench/realtalk/train-ranker.sh), a path to a file that command wrote, or 'none' to
   *     rank by the fusion alone.
   * @param candidates Each provider is asked for at least this many items (at most 200) when the
   *     learned ranking is in use, so that it orders a wide list, not the fusion's first few. The
   *     shipped model was trained on lists of this width (30).
   * @param trustWeight How far the owner's trust in an item (the 'signal.trust' a provider reports,
   *     -1 to 1, raised by used and lowered by wrong feedback) moves it after the ranking score
   *     (learned or fusion), in standard deviations of that score over the call's candidates: final
   *     = score + trust-weight x sigma x trust, so never more than trust-weight sigmas either way
   *     (0 to 5; 0 turns it off). At 1 an item marked wrong twice (trust -0.76) falls 0.76 sigma,
   *     below a relevant item that was close behind it, and an irrelevant item trusted by much use
   *     rises at most one sigma. An item without trust (0) does not move.
   */
  public record Ranking(
      @DefaultValue("") String model,
      @DefaultValue("30") int candidates,
      @DefaultValue("1.0") double trustWeight) {

    /** The {@link #model} value that turns the learned ranking off. */
    public static final String NONE = "none";

    public Ranking {
      model = model == null ? "" : model.strip();
      if (candidates == 0) {
        candidates = 30;
      }
      between(candidates, 1, RecallRequest.MAX_LIMIT, "memstack.stack.ranking.candidates");
      between(trustWeight, 0, 5, "memstack.stack.ranking.trust-weight");
    }

    public static Ranking defaults() {
      return new Ranking("", 30, 1.0);
    }
  }
}
