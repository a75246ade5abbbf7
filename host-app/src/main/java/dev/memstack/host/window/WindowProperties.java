package dev.memstack.host.window;

import static dev.memstack.host.SettingChecks.atLeast;
import static dev.memstack.host.SettingChecks.between;
import static dev.memstack.host.SettingChecks.positive;

import dev.memstack.spi.AgentId;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the conversation window ({@code memstack.window.*}), each overridable per agent under
 * {@code memstack.window.agents.<agentId>.*}. A wrong value stops the host at start with a message
 * naming the key.
 *
 * @param defaultMaxInputTokens Most tokens of one model request (system prompt, workspace files,
 *     summary, recent messages and the current message), unless a request names its own.
 * @param compactTriggerRatio Share of default-max-input-tokens past which the older turns are
 *     summarised by the chat model (0.1-1).
 * @param preserveRecentPairs Exchanges (user message and reply) always kept verbatim at the end of
 *     the window; with protect-last-min-messages it sets the smallest recent tail.
 * @param protectLastMinMessages Fewest recent messages kept verbatim when older turns are
 *     summarised: the tail keeps max(preserve-recent-pairs x 2, this) messages.
 * @param summaryMaxTokens Most tokens of the summary of the older turns.
 * @param summaryCacheTtl How long a summary is reused for the same covered turns, on every host.
 * @param summaryTimeout Longest the chat model may take for one summary; past it the window falls
 *     back to the sliding window.
 * @param shortTermMemorySize Messages of the sliding window used without a chat model.
 * @param agents Per-agent overrides, by agent id: memstack.window.agents.<agentId>. followed by
 *     default-max-input-tokens, compact-trigger-ratio, preserve-recent-pairs,
 *     protect-last-min-messages, summary-max-tokens or short-term-memory-size; a key left out takes
 *     the value above.
 */
@ConfigurationProperties("memstack.window")
public record WindowProperties(
    @DefaultValue("128000") int defaultMaxInputTokens,
    @DefaultValue("0.75") double compactTriggerRatio,
    @DefaultValue("2") int preserveRecentPairs,
    @DefaultValue("10") int protectLastMinMessages,
    @DefaultValue("300") int summaryMaxTokens,
    @DefaultValue("30m") Duration summaryCacheTtl,
    @DefaultValue("60s") Duration summaryTimeout,
    @DefaultValue("20") int shortTermMemorySize,
    Map<String, AgentWindow> agents) {

  static final String PREFIX = "memstack.window.";

  public WindowProperties {
    // the durations in these defaults are not checked yet; only the other settings are
    Settings defaults =
        new Settings(
            defaultMaxInputTokens,
            compactTriggerRatio,
            preserveRecentPairs,
            protectLastMinMessages,
            summaryMaxTokens,
            shortTermMemorySize,
            summaryCacheTtl,
            summaryTimeout);
    defaults.check(PREFIX);
    summaryCacheTtl =
        positive(summaryCacheTtl, Duration.ofMinutes(30), PREFIX + "summary-cache-ttl");
    summaryTimeout = positive(summaryTimeout, Duration.ofSeconds(60), PREFIX + "summary-timeout");
    agents = agents == null ? Map.of() : Map.copyOf(new LinkedHashMap<>(agents));
    for (Map.Entry<String, AgentWindow> agent : agents.entrySet()) {
      try {
        AgentId.of(agent.getKey());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            PREFIX + "agents." + agent.getKey() + " does not name a valid agent id", e);
      }
      defaults.with(agent.getValue()).check(PREFIX + "agents." + agent.getKey() + ".");
    }
  }

  /** Every setting at its default. */
  public static WindowProperties defaults() {
    return new WindowProperties(128_000, 0.75, 2, 10, 300, null, null, 20, null);
  }

  /** The settings of {@code agent}: its overrides over the defaults. */
  public Settings settings(AgentId agent) {
    return Settings.of(this).with(agents.get(agent.value()));
  }

  /**
   * One agent's overrides ({@code memstack.window.agents.<agentId>.*}); an unset key takes {@code
   * memstack.window.*}.
   *
   * @param defaultMaxInputTokens Most tokens of one model request for this agent.
   * @param compactTriggerRatio Share of the budget past which this agent's older turns are
   *     summarised.
   * @param preserveRecentPairs Exchanges always kept verbatim for this agent.
   * @param protectLastMinMessages Fewest recent messages kept verbatim for this agent.
   * @param summaryMaxTokens Most tokens of this agent's summaries.
   * @param shortTermMemorySize Messages of this agent's sliding window without a chat model.
   */
  public record AgentWindow(
      Integer defaultMaxInputTokens,
      Double compactTriggerRatio,
      Integer preserveRecentPairs,
      Integer protectLastMinMessages,
      Integer summaryMaxTokens,
      Integer shortTermMemorySize) {}

  /** The settings that apply to one agent. */
  public record Settings(
      int maxInputTokens,
      double triggerRatio,
      int preserveRecentPairs,
      int protectLastMinMessages,
      int summaryMaxTokens,
      int shortTermMemorySize,
      Duration summaryCacheTtl,
      Duration summaryTimeout) {

    static Settings of(WindowProperties p) {
      return new Settings(
          p.defaultMaxInputTokens(),
          p.compactTriggerRatio(),
          p.preserveRecentPairs(),
          p.protectLastMinMessages(),
          p.summaryMaxTokens(),
          p.shortTermMemorySize(),
          p.summaryCacheTtl(),
          p.summaryTimeout());
    }

    Settings with(AgentWindow o) {
      if (o == null) {
        return this;
      }
      return new Settings(
          o.defaultMaxInputTokens() != null ? o.defaultMaxInputTokens() : maxInputTokens,
          o.compactTriggerRatio() != null ? o.compactTriggerRatio() : triggerRatio,
          o.preserveRecentPairs() != null ? o.preserveRecentPairs() : preserveRecentPairs,
          o.protectLastMinMessages() != null ? o.protectLastMinMessages() : protectLastMinMessages,
          o.summaryMaxTokens() != null ? o.summaryMaxTokens() : summaryMaxTokens,
          o.shortTermMemorySize() != null ? o.shortTermMemorySize() : shortTermMemorySize,
          summaryCacheTtl,
          summaryTimeout);
    }

    /** These settings with another budget (a request's own). */
    public Settings withMaxInputTokens(int tokens) {
      return with(new AgentWindow(tokens, null, null, null, null, null));
    }

    /** The fewest recent messages kept verbatim when older turns are summarised. */
    public int minRecentMessages() {
      return Math.max(preserveRecentPairs * 2, protectLastMinMessages);
    }

    /** The token count past which the older turns are summarised. */
    public int trigger() {
      return (int) Math.floor(maxInputTokens * triggerRatio);
    }

    /** Checks every setting but the durations, naming each as under {@code prefix}. */
    void check(String prefix) {
      between(maxInputTokens, 256, 100_000_000, prefix + "default-max-input-tokens");
      if (!(triggerRatio >= 0.1 && triggerRatio <= 1.0)) {
        throw new IllegalArgumentException(
            prefix + "compact-trigger-ratio must be 0.1-1, got: " + triggerRatio);
      }
      between(preserveRecentPairs, 1, 1000, prefix + "preserve-recent-pairs");
      between(protectLastMinMessages, 0, 10_000, prefix + "protect-last-min-messages");
      atLeast(summaryMaxTokens, 16, prefix + "summary-max-tokens");
      if (summaryMaxTokens >= maxInputTokens) {
        throw new IllegalArgumentException(
            prefix
                + "summary-max-tokens must be below default-max-input-tokens ("
                + maxInputTokens
                + "), got: "
                + summaryMaxTokens);
      }
      between(shortTermMemorySize, 2, 10_000, prefix + "short-term-memory-size");
    }
  }
}
