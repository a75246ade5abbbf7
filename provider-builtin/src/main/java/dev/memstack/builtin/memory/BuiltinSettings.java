package dev.memstack.builtin.memory;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The builtin provider's {@code config.*} settings, validated at start. Every key is optional.
 *
 * @param perOwner {@code per-owner} (default {@code true}): each owner gets PERSONAL {@code
 *     PROFILE.md}, {@code MEMORY.md} and daily notes; {@code false} keeps everything in TEAM scope
 * @param systemPromptMaxChars {@code system-prompt-max-chars} (default 24000, 0 = no budget):
 *     budget of the system prompt block; past it the least recently updated files are left out
 * @param profileMaxChars {@code profile-max-chars} (default 4000, 0 = no cap): cap of {@code
 *     PROFILE.md}, cut at the last {@code ##} heading that fits
 * @param memoryMaxChars {@code memory-md-max-chars} (default 8000, 0 = no cap): cap of {@code
 *     MEMORY.md}, cut the same way
 * @param fileMaxBytes {@code file-max-bytes} (default 1048576): largest file of any other name, in
 *     UTF-8 bytes; a longer write is refused
 * @param searchMaxFiles {@code search-max-files} (default 50): most distinct files keyword hits are
 *     taken from
 * @param snippetChars {@code snippet-chars} (default 80): length of a search hit's snippet
 * @param coreFileWeight {@code core-file-weight} (default 1.5): score factor of hits in core files
 *     (AGENTS, SOUL, PROFILE, MEMORY, KNOWLEDGE) over daily notes and other files
 * @param turnGistChars {@code turn-gist-chars} (default 800): how much of the user message and of
 *     the reply a daily-note entry keeps
 * @param skipCronTurns {@code skip-cron-turns} (default {@code true}): turns of scheduled jobs are
 *     not written to daily notes
 * @param templatesDir {@code templates-dir} (optional): a directory whose {@code AGENTS.md}, {@code
 *     SOUL.md}, {@code PROFILE.md}, {@code MEMORY.md} replace the bundled starting files
 * @param indexCommitInterval {@code index-commit-interval} (default 5s): how often the keyword
 *     index is committed to disk at most (it is rebuilt from the files if a crash loses a commit)
 * @param systemBlockMaxChars {@code system-block-max-chars} (default 4000, 0 = no limit): most
 *     characters of the structured entries ({@link StructuredEntries}) of {@code PROFILE.md} and
 *     {@code MEMORY.md} put into one prompt block; the oldest are left out at injection time
 * @param systemBlockMaxEntriesPerType {@code system-block-max-entries-per-type} (default 40, 0 = no
 *     limit): most entries of one file type ({@code PROFILE.md}, {@code MEMORY.md}) put into one
 *     prompt block, newest first
 */
public record BuiltinSettings(
    boolean perOwner,
    int systemPromptMaxChars,
    int profileMaxChars,
    int memoryMaxChars,
    int fileMaxBytes,
    int searchMaxFiles,
    int snippetChars,
    double coreFileWeight,
    int turnGistChars,
    boolean skipCronTurns,
    Optional<Path> templatesDir,
    Duration indexCommitInterval,
    int systemBlockMaxChars,
    int systemBlockMaxEntriesPerType) {

  /** Every key this provider reads. */
  public static final Set<String> KEYS =
      Set.of(
          "per-owner",
          "system-prompt-max-chars",
          "profile-max-chars",
          "memory-md-max-chars",
          "file-max-bytes",
          "search-max-files",
          "snippet-chars",
          "core-file-weight",
          "turn-gist-chars",
          "skip-cron-turns",
          "templates-dir",
          "index-commit-interval",
          "system-block-max-chars",
          "system-block-max-entries-per-type");

  /** The defaults. */
  public static BuiltinSettings defaults() {
    return from(ProviderConfig.empty(""));
  }

  /**
   * Reads and validates every key.
   *
   * @throws ProviderConfigException naming the first unknown or invalid key
   */
  public static BuiltinSettings from(ProviderConfig config) {
    return from(config, Set.of());
  }

  /**
   * Reads and validates every key; {@code otherKeys} are read elsewhere (the memory jobs) and only
   * accepted here.
   *
   * @throws ProviderConfigException naming the first unknown or invalid key
   */
  public static BuiltinSettings from(ProviderConfig config, Set<String> otherKeys) {
    for (String key : config.keys()) {
      if (!KEYS.contains(key) && !otherKeys.contains(key)) {
        TreeSet<String> known = new TreeSet<>(KEYS);
        known.addAll(otherKeys);
        throw new ProviderConfigException(
            config.fullKey(key), "is not a setting of the builtin provider; known: " + known);
      }
    }
    Optional<Path> templates = config.string("templates-dir").map(Path::of);
    if (templates.isPresent() && !Files.isDirectory(templates.get())) {
      throw new ProviderConfigException(
          config.fullKey("templates-dir"), "is not a directory: " + templates.get());
    }
    double weight = config.decimal("core-file-weight", 1.5, 0.1, 100);
    Duration commit = config.nonNegativeDuration("index-commit-interval", Duration.ofSeconds(5));
    return new BuiltinSettings(
        config.bool("per-owner", true),
        config.integer("system-prompt-max-chars", 24_000, 0, 10_000_000),
        config.integer("profile-max-chars", 4000, 0, 10_000_000),
        config.integer("memory-md-max-chars", 8000, 0, 10_000_000),
        config.integer("file-max-bytes", 1_048_576, 1024, 64 * 1_048_576),
        config.integer("search-max-files", 50, 1, 10_000),
        config.integer("snippet-chars", 80, 20, 2000),
        weight,
        config.integer("turn-gist-chars", 800, 40, 100_000),
        config.bool("skip-cron-turns", true),
        templates,
        commit,
        config.integer("system-block-max-chars", 4000, 0, 10_000_000),
        config.integer("system-block-max-entries-per-type", 40, 0, 1_000_000));
  }
}
