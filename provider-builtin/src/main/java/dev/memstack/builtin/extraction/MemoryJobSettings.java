package dev.memstack.builtin.extraction;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.support.ConsolidationSettings;
import dev.memstack.support.CronSchedule;
import java.time.Duration;
import java.util.Set;

/**
 * The {@code config.*} keys of the memory jobs, validated at start. Every key is optional.
 *
 * @param autoSummarize {@code auto-summarize-enabled} (default {@code true}): extract after turns
 * @param skipCronConversations {@code skip-cron-conversations} (default {@code true}): turns whose
 *     trigger source is {@code cron} start no extraction
 * @param minMessages {@code min-messages-for-summarize} (default 4): messages (user and assistant)
 *     a conversation needs before extraction runs
 * @param minUserMessageLength {@code min-user-message-length} (default 10): characters the last
 *     user message needs
 * @param cooldown {@code cooldown-minutes} (default 5): per agent and owner, the least time between
 *     two automatic extractions
 * @param maxTranscriptMessages {@code max-transcript-messages} (default 30): newest messages in the
 *     transcript
 * @param transcriptMessageChars {@code transcript-message-max-chars} (default 2000): each message
 *     is cut there with a truncation marker
 * @param conversationMaxMessages {@code conversation-max-messages} (default 100): messages kept per
 *     conversation on disk (the oldest are dropped)
 * @param modelTimeout {@code model-timeout} (default 2m): longest wait for one model answer
 * @param emergenceEnabled {@code emergence-enabled} (default {@code true}): the dreaming schedule
 * @param emergenceCron {@code emergence-cron} (default {@code 0 0 3 * * *}): six-field cron (second
 *     minute hour day-of-month month day-of-week) in the clock's zone
 * @param emergenceDayRange {@code emergence-day-range} (default 7): days of daily notes read
 * @param emergenceMaxOwners {@code emergence-max-owners-per-run} (default 50): PERSONAL buckets
 *     dreamed per agent and run (0 = no limit); the rest come next time
 * @param dreamsMaxChars {@code dreams-max-chars} (default 16000): cap of DREAMS.md; older entries
 *     are condensed to one line each
 * @param scheduleCheckInterval {@code schedule-check-interval} (default 30s): how often the
 *     scheduler thread looks at the clock
 * @param archiveKeepDays {@code archive-keep-days} (default 30): dreaming reports older than this
 *     roll into their month's compressed archive
 * @param consolidation the {@code structured-consolidation-*} keys ({@link ConsolidationSettings}:
 *     {@code -enabled} true, {@code -cron} {@code 0 30 3 * * *} independent of dreaming's, {@code
 *     -min-entries} 8 per bucket, {@code -max-owners-per-run} 50 PERSONAL buckets per agent)
 * @param soulUpdateInterval {@code soul-update-interval} (default 20, 0 = off): every this many
 *     writes to an agent's TEAM or GLOBAL memory, {@code SOUL.md} is rewritten from it
 */
public record MemoryJobSettings(
    boolean autoSummarize,
    boolean skipCronConversations,
    int minMessages,
    int minUserMessageLength,
    Duration cooldown,
    int maxTranscriptMessages,
    int transcriptMessageChars,
    int conversationMaxMessages,
    Duration modelTimeout,
    boolean emergenceEnabled,
    CronSchedule emergenceCron,
    int emergenceDayRange,
    int emergenceMaxOwners,
    int dreamsMaxChars,
    Duration scheduleCheckInterval,
    int archiveKeepDays,
    ConsolidationSettings consolidation,
    int soulUpdateInterval) {

  /** Every key the memory jobs read, {@link ConsolidationSettings#KEYS} included. */
  public static final Set<String> KEYS =
      keys(
          "auto-summarize-enabled",
          "skip-cron-conversations",
          "min-messages-for-summarize",
          "min-user-message-length",
          "cooldown-minutes",
          "max-transcript-messages",
          "transcript-message-max-chars",
          "conversation-max-messages",
          "model-timeout",
          "emergence-enabled",
          "emergence-cron",
          "emergence-day-range",
          "emergence-max-owners-per-run",
          "dreams-max-chars",
          "schedule-check-interval",
          "archive-keep-days",
          "soul-update-interval");

  /** The defaults. */
  public static MemoryJobSettings defaults() {
    return from(ProviderConfig.empty(""));
  }

  /**
   * Reads and validates the keys (unknown keys are the caller's concern).
   *
   * @throws ProviderConfigException naming the invalid key
   */
  public static MemoryJobSettings from(ProviderConfig config) {
    CronSchedule schedule = CronSchedule.of(config, "emergence-cron", "0 0 3 * * *");
    Duration timeout = config.positiveDuration("model-timeout", Duration.ofMinutes(2));
    Duration check = config.positiveDuration("schedule-check-interval", Duration.ofSeconds(30));
    int maxTranscript = config.integer("max-transcript-messages", 30, 1, 1000);
    return new MemoryJobSettings(
        config.bool("auto-summarize-enabled", true),
        config.bool("skip-cron-conversations", true),
        config.integer("min-messages-for-summarize", 4, 1, 1000),
        config.integer("min-user-message-length", 10, 0, 100_000),
        Duration.ofMinutes(config.integer("cooldown-minutes", 5, 0, 10_000)),
        maxTranscript,
        config.integer("transcript-message-max-chars", 2000, 100, 200_000),
        config.integer("conversation-max-messages", Math.max(100, maxTranscript), 2, 10_000),
        timeout,
        config.bool("emergence-enabled", true),
        schedule,
        config.integer("emergence-day-range", 7, 1, 366),
        config.integer("emergence-max-owners-per-run", 50, 0, 100_000),
        config.integer("dreams-max-chars", 16_000, 2000, 10_000_000),
        check,
        config.integer("archive-keep-days", 30, 1, 3660),
        ConsolidationSettings.from(config),
        config.integer("soul-update-interval", 20, 0, 1_000_000));
  }

  private static Set<String> keys(String... own) {
    Set<String> keys = new java.util.HashSet<>(Set.of(own));
    keys.addAll(ConsolidationSettings.KEYS);
    return Set.copyOf(keys);
  }
}
