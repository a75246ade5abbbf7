package dev.memstack.support;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.util.Objects;
import java.util.Set;

/**
 * The {@code config.*} keys of structured consolidation, the nightly job that merges an owner's
 * near-duplicate or outdated structured memory with the chat model and never writes more entries
 * than it read. One set of names and defaults for every provider that runs it (builtin over the
 * entries of {@code PROFILE.md} and {@code MEMORY.md}, vector over its typed memories). Every key
 * is optional.
 *
 * @param enabled {@code structured-consolidation-enabled} (default {@code true}): the nightly run
 *     (it needs a chat model either way)
 * @param cron {@code structured-consolidation-cron} (default {@code 0 30 3 * * *}): its schedule,
 *     six fields, in the provider clock's zone
 * @param minEntries {@code structured-consolidation-min-entries} (default 8): fewer entries are not
 *     sent to the model
 * @param maxOwners {@code structured-consolidation-max-owners-per-run} (default 50): owners
 *     consolidated per agent and run (0 = no limit); the rest come next time
 */
public record ConsolidationSettings(
    boolean enabled, CronSchedule cron, int minEntries, int maxOwners) {

  /**
   * The message of an on-demand consolidation without a chat model (a {@code CONFLICT}), whatever
   * there is to merge.
   */
  public static final String NO_MODEL = "no chat model configured (set memstack.models.chat)";

  /** The keys read here. */
  public static final Set<String> KEYS =
      Set.of(
          "structured-consolidation-enabled",
          "structured-consolidation-cron",
          "structured-consolidation-min-entries",
          "structured-consolidation-max-owners-per-run");

  public ConsolidationSettings {
    Objects.requireNonNull(cron, "cron");
    if (minEntries < 1 || maxOwners < 0) {
      throw new IllegalArgumentException(
          "minEntries must be at least 1 and maxOwners at least 0, got "
              + minEntries
              + " and "
              + maxOwners);
    }
  }

  /** The defaults. */
  public static ConsolidationSettings defaults() {
    return from(ProviderConfig.empty(""));
  }

  /**
   * Reads and checks the keys (unknown keys are the caller's concern).
   *
   * @throws ProviderConfigException naming the invalid key
   */
  public static ConsolidationSettings from(ProviderConfig config) {
    return new ConsolidationSettings(
        config.bool("structured-consolidation-enabled", true),
        CronSchedule.of(config, "structured-consolidation-cron", "0 30 3 * * *"),
        config.integer("structured-consolidation-min-entries", 8, 1, 100_000),
        config.integer("structured-consolidation-max-owners-per-run", 50, 0, 100_000));
  }
}
