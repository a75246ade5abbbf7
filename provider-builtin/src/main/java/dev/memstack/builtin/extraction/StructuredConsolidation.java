package dev.memstack.builtin.extraction;

import dev.memstack.builtin.concurrent.DaemonThreads;
import dev.memstack.builtin.memory.SizeCaps;
import dev.memstack.builtin.memory.StructuredEntries;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.Scope;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Structured consolidation (the seeds' nightly consolidation): the structured entries ({@link
 * StructuredEntries}) of a bucket's {@code PROFILE.md} and {@code MEMORY.md} go to the host's chat
 * model, which merges near-duplicates and drops outdated ones and answers the complete new list
 * {@code {reason, merged, entries:[{file, section, text}]}}. The invariant: a file never ends with
 * more entries than it had. An answer with more entries than it was given (for a file or in all),
 * with a file or section it was not given, or that is not such JSON writes nothing; otherwise each
 * changed file is rewritten (the new entries of a section where its first entry was; headings and
 * other text kept; the size caps applied), unless it changed since it was read. A bucket with fewer
 * than {@code structured-consolidation-min-entries} entries is not sent to the model. Every bucket
 * sent to the model gets an entry in its {@code DREAMS.md}.
 *
 * <p>A run covers the agent's TEAM bucket and at most {@code
 * structured-consolidation-max-owners-per-run} PERSONAL buckets (owners by key, continuing after
 * the last one done the time before), or one owner's bucket. The schedule ({@code
 * structured-consolidation-cron}, default {@code 0 30 3 * * *}; off with {@code
 * structured-consolidation-enabled=false}) is independent of dreaming's and kept the same way: one
 * daemon thread, a next time per agent, nothing without a chat model. Across hosts it does what
 * {@link Dreaming} does: every run holds the lock {@code structured-consolidation:<agent>}, a
 * scheduled run claims its slot under that name, and the owners continue from a shared counter.
 * Thread-safe; {@link #close()} stops the thread.
 */
public final class StructuredConsolidation implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(StructuredConsolidation.class);
  private static final String JOB = "structured-consolidation";
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT);

  /**
   * What one bucket's consolidation did.
   *
   * @param status {@code updated}, {@code unchanged}, {@code below_minimum}, {@code grew} (the
   *     model answered more entries; nothing written), {@code invalid_answer}, {@code failed} or
   *     {@code changed_meanwhile} (a file changed while the model worked; that file kept)
   * @param entriesBefore entries of the bucket before
   * @param entriesAfter entries after (equal to before when nothing was written)
   * @param merged what the model said it merged or dropped
   */
  public record BucketRun(
      String scope,
      OwnerKey owner,
      String status,
      String reason,
      int entriesBefore,
      int entriesAfter,
      List<String> merged) {

    public BucketRun {
      merged = List.copyOf(merged);
    }
  }

  /**
   * One run over an agent.
   *
   * @param ownersConsolidated PERSONAL buckets the run went through (below the minimum included)
   * @param updated buckets whose files were rewritten
   * @param entriesBefore entries of every bucket gone through, before
   * @param entriesAfter the same after
   */
  public record Run(
      Instant time,
      String trigger,
      int ownersConsolidated,
      int updated,
      int entriesBefore,
      int entriesAfter,
      List<BucketRun> buckets) {

    public Run {
      buckets = List.copyOf(buckets);
    }
  }

  private final MemoryJobParts parts;
  private final Map<AgentId, Instant> nextRuns = new ConcurrentHashMap<>();
  private final Map<AgentId, Run> lastRuns = new ConcurrentHashMap<>();
  private final Map<AgentId, String> ownerCursors = new ConcurrentHashMap<>();
  private final Map<AgentId, ReentrantLock> locks = new ConcurrentHashMap<>();
  private volatile ScheduledExecutorService scheduler;

  public StructuredConsolidation(MemoryJobParts parts) {
    this.parts = Objects.requireNonNull(parts, "parts");
  }

  /** Starts the scheduler thread (when the consolidation is enabled). */
  public void start() {
    if (!parts.settings().consolidationEnabled() || scheduler != null) {
      return;
    }
    ScheduledExecutorService thread =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("memstack-builtin-consolidation"));
    long every = parts.settings().scheduleCheckInterval().toMillis();
    thread.scheduleWithFixedDelay(
        () -> {
          try {
            tick();
          } catch (RuntimeException e) {
            log.warn("structured consolidation schedule check failed: {}", e.toString());
          }
        },
        every,
        every,
        TimeUnit.MILLISECONDS);
    scheduler = thread;
  }

  /**
   * Runs every agent whose scheduled time has come by the clock; an agent seen for the first time
   * gets its next time. Does nothing when the consolidation is off or no chat model is configured.
   *
   * @return how many agents ran
   */
  public int tick() {
    if (!parts.settings().consolidationEnabled() || !parts.model().available()) {
      return 0;
    }
    Instant now = parts.clock().instant();
    int ran = 0;
    for (AgentId agent : parts.files().agents()) {
      Instant next = nextRuns.computeIfAbsent(agent, a -> nextAfter(now));
      if (!now.isBefore(next)) {
        Attempt attempt = attempt(agent, null, "scheduled", next.toString());
        if (attempt.unreachable()) {
          continue; // the same slot at the next check, so still once per schedule
        }
        nextRuns.put(agent, nextAfter(now));
        if (attempt.run().isPresent()) {
          ran++;
          Run run = attempt.run().get();
          log.info(
              "structured consolidation of agent {}: {} bucket(s) updated, {} → {} entries",
              agent,
              run.updated(),
              run.entriesBefore(),
              run.entriesAfter());
        }
      }
    }
    return ran;
  }

  private Instant nextAfter(Instant time) {
    return parts
        .settings()
        .consolidationCron()
        .next(time.atZone(parts.clock().getZone()))
        .toInstant();
  }

  /**
   * Consolidates now: {@code owner}'s bucket only when given (TEAM when per-owner memory is off),
   * otherwise TEAM and up to the per-run maximum of owners.
   *
   * @param trigger {@code manual} or {@code scheduled}
   * @return the run, or empty when a run of the agent is already in progress (here or on another
   *     host) or no chat model is configured
   */
  public Optional<Run> run(AgentId agent, OwnerKey owner, String trigger) {
    return attempt(agent, owner, trigger, null).run();
  }

  private record Attempt(Optional<Run> run, boolean unreachable) {
    static final Attempt NONE = new Attempt(Optional.empty(), false);
    static final Attempt UNREACHABLE = new Attempt(Optional.empty(), true);
  }

  private Attempt attempt(AgentId agent, OwnerKey owner, String trigger, String slot) {
    if (!parts.model().available()) {
      return Attempt.NONE;
    }
    ReentrantLock lock = locks.computeIfAbsent(agent, a -> new ReentrantLock());
    if (!lock.tryLock()) {
      return Attempt.NONE;
    }
    Coordination.Lease shared = null;
    try {
      Coordination coordination = parts.coordination();
      if (coordination.shared()) {
        try {
          shared = coordination.tryLock(JOB + ":" + agent.value(), lease()).orElse(null);
        } catch (ProviderUnavailableException e) {
          log.warn("structured consolidation of agent {} not started: {}", agent, e.getMessage());
          return Attempt.UNREACHABLE;
        }
        if (shared == null) {
          return Attempt.NONE; // running on another host
        }
        if (slot != null) {
          boolean claimed;
          try {
            claimed = coordination.claimRun(JOB + ":" + agent.value(), slot);
          } catch (ProviderUnavailableException e) {
            log.warn(
                "structured consolidation of agent {} at {} not started: {}",
                agent,
                slot,
                e.getMessage());
            return Attempt.UNREACHABLE;
          }
          if (!claimed) {
            return Attempt.NONE; // run by another host
          }
        }
      }
      List<BucketRun> results = new ArrayList<>();
      if (owner != null) {
        results.add(consolidate(parts.files().ownerBucket(agent, owner), trigger));
      } else {
        results.add(consolidate(Bucket.team(agent), trigger));
        if (parts.files().perOwner()) {
          for (OwnerKey next : ownersThisRun(agent)) {
            renew(shared, agent);
            results.add(consolidate(Bucket.personal(agent, next), trigger));
          }
        }
      }
      Run run = summarise(trigger, results);
      lastRuns.put(agent, run);
      return new Attempt(Optional.of(run), false);
    } finally {
      if (shared != null) {
        shared.close();
      }
      lock.unlock();
    }
  }

  private Run summarise(String trigger, List<BucketRun> results) {
    int owners = 0;
    int updated = 0;
    int before = 0;
    int after = 0;
    for (BucketRun result : results) {
      if (result.owner() != null) {
        owners++;
      }
      if (result.status().equals("updated")) {
        updated++;
      }
      before += result.entriesBefore();
      after += result.entriesAfter();
    }
    return new Run(parts.clock().instant(), trigger, owners, updated, before, after, results);
  }

  /** A lease long enough for one bucket; renewed before each further bucket. */
  private Duration lease() {
    return parts.settings().modelTimeout().plusSeconds(30);
  }

  private static void renew(Coordination.Lease lease, AgentId agent) {
    if (lease == null) {
      return;
    }
    try {
      if (!lease.renew()) {
        log.warn("structured consolidation of agent {}: the lock's lease passed", agent);
      }
    } catch (ProviderUnavailableException e) {
      log.debug(
          "structured consolidation of agent {}: lease not renewed: {}", agent, e.getMessage());
    }
  }

  /** The owners of this run, continuing after the last owner of the previous run. */
  private List<OwnerKey> ownersThisRun(AgentId agent) {
    List<OwnerKey> owners = parts.files().owners(agent);
    int max = parts.settings().consolidationMaxOwners();
    if (max == 0 || owners.size() <= max) {
      return owners;
    }
    if (parts.coordination().shared()) {
      try {
        long end = parts.coordination().addAndGet(JOB + "-owners:" + agent.value(), max);
        int from = (int) Math.floorMod(end - max, (long) owners.size());
        List<OwnerKey> chosen = new ArrayList<>();
        for (int i = 0; i < max; i++) {
          chosen.add(owners.get((from + i) % owners.size()));
        }
        return chosen;
      } catch (ProviderUnavailableException e) {
        log.debug("structured consolidation of {}: this host's cursor: {}", agent, e.getMessage());
      }
    }
    String cursor = ownerCursors.get(agent);
    int start = 0;
    if (cursor != null) {
      while (start < owners.size() && owners.get(start).value().compareTo(cursor) <= 0) {
        start++;
      }
      if (start >= owners.size()) {
        start = 0;
      }
    }
    List<OwnerKey> chosen = new ArrayList<>();
    for (int i = 0; i < max; i++) {
      chosen.add(owners.get((start + i) % owners.size()));
    }
    ownerCursors.put(agent, chosen.get(chosen.size() - 1).value());
    return chosen;
  }

  /** The bucket's structured files as read, by file name (PROFILE.md, then MEMORY.md). */
  private record Read(
      Map<String, String> contents, Map<String, StructuredEntries.Document> documents, int count) {}

  private Read read(Bucket bucket) {
    Map<String, String> contents = new LinkedHashMap<>();
    Map<String, StructuredEntries.Document> documents = new LinkedHashMap<>();
    int count = 0;
    for (WorkspacePath path : StructuredEntries.FILES) {
      String content = parts.files().read(bucket, path).orElse("");
      StructuredEntries.Document document = StructuredEntries.parse(content);
      contents.put(path.value(), content);
      documents.put(path.value(), document);
      count += document.entries().size();
    }
    return new Read(contents, documents, count);
  }

  private BucketRun consolidate(Bucket bucket, String trigger) {
    Read read = read(bucket);
    int before = read.count();
    if (before < parts.settings().consolidationMinEntries()) {
      return result(
          bucket,
          "below_minimum",
          before
              + " entries, fewer than structured-consolidation-min-entries ("
              + parts.settings().consolidationMinEntries()
              + ")",
          before,
          before,
          List.of());
    }
    ZonedDateTime now = parts.clock().instant().atZone(parts.clock().getZone());
    String scope = bucket.scope() == Scope.PERSONAL ? "personal " + bucket.owner() : "team";
    String readLine =
        String.join(
            ", ",
            read.documents().entrySet().stream()
                .map(e -> e.getKey() + " (" + e.getValue().entries().size() + " entries)")
                .toList());
    String answer;
    try {
      answer =
          parts
              .model()
              .complete(
                  parts.templates().render(PromptTemplates.CONSOLIDATION_SYSTEM, Map.of()),
                  parts
                      .templates()
                      .render(
                          PromptTemplates.CONSOLIDATION_USER,
                          Map.of(
                              "date", now.toLocalDate().toString(),
                              "scope", scope,
                              "entry_count", Integer.toString(before),
                              "entries", entriesText(read))),
                  parts.settings().modelTimeout());
    } catch (RuntimeException e) {
      String reason =
          e instanceof LanguageModel.NoLanguageModelException
              ? "no chat model configured"
              : "the chat model failed: " + e.getMessage();
      log.warn("structured consolidation of {}: {}", bucket, reason);
      journal(bucket, now, scope, trigger, readLine, "none (" + reason + ")", "nothing (failed)");
      return result(bucket, "failed", reason, before, before, List.of());
    }
    Optional<ModelAnswers.Consolidation> parsed = ModelAnswers.consolidation(answer);
    if (parsed.isEmpty()) {
      String reason = "the model's answer holds no valid entries list; nothing changed";
      log.warn(
          "structured consolidation of {}: {}: {}",
          bucket,
          reason,
          MemoryExtraction.oneLine(answer, 200));
      journal(bucket, now, scope, trigger, readLine, "none (invalid answer)", "nothing");
      return result(bucket, "invalid_answer", reason, before, before, List.of());
    }
    ModelAnswers.Consolidation consolidation = parsed.get();
    List<String> merged = consolidation.merged();
    String patterns =
        consolidation.reason().isEmpty()
            ? (merged.isEmpty() ? "(no reason given)" : String.join("; ", merged))
            : consolidation.reason()
                + (merged.isEmpty() ? "" : " (merged: " + String.join("; ", merged) + ")");
    // group the answer by file and section, refusing what it was not given
    Map<String, Map<String, List<String>>> byFile = new LinkedHashMap<>();
    for (ModelAnswers.ConsolidatedEntry entry : consolidation.entries()) {
      StructuredEntries.Document document = read.documents().get(entry.file());
      if (document == null || !document.sections().contains(entry.section())) {
        String reason =
            "the model's answer names "
                + entry.file()
                + (entry.section().isEmpty() ? "" : " ## " + entry.section())
                + ", which it was not given; nothing changed";
        journal(bucket, now, scope, trigger, readLine, patterns, "nothing (" + reason + ")");
        return result(bucket, "invalid_answer", reason, before, before, merged);
      }
      byFile
          .computeIfAbsent(entry.file(), f -> new LinkedHashMap<>())
          .computeIfAbsent(entry.section(), s -> new ArrayList<>())
          .add(entry.text());
    }
    int answered = consolidation.entries().size();
    List<String> grew = new ArrayList<>();
    for (Map.Entry<String, StructuredEntries.Document> file : read.documents().entrySet()) {
      int had = file.getValue().entries().size();
      Map<String, List<String>> sections = byFile.get(file.getKey());
      int has = sections == null ? had : sections.values().stream().mapToInt(List::size).sum();
      if (has > had) {
        grew.add(file.getKey() + " " + had + " → " + has);
      }
    }
    if (answered > before || !grew.isEmpty()) {
      String reason =
          "the model returned "
              + answered
              + " entries for "
              + before
              + (grew.isEmpty() ? "" : " (" + String.join(", ", grew) + ")")
              + "; a consolidation never adds entries, nothing written";
      log.warn("structured consolidation of {}: {}", bucket, reason);
      journal(bucket, now, scope, trigger, readLine, patterns, "nothing (" + reason + ")");
      return result(bucket, "grew", reason, before, before, merged);
    }
    List<String> changed = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    int written = before;
    for (Map.Entry<String, Map<String, List<String>>> file : byFile.entrySet()) {
      String name = file.getKey();
      StructuredEntries.Document document = read.documents().get(name);
      String original = read.contents().get(name);
      String next = document.replaceEntries(file.getValue());
      if (next.equals(original)) {
        continue;
      }
      int had = document.entries().size();
      int has = file.getValue().values().stream().mapToInt(List::size).sum();
      Optional<SizeCaps.Capped> capped;
      try {
        capped = parts.files().replaceIf(bucket, WorkspacePath.of(name), original, next);
      } catch (IllegalArgumentException e) {
        kept.add(name + " (" + e.getMessage() + ")");
        continue;
      }
      if (capped.isEmpty()) {
        kept.add(name + " (changed while the model worked)");
        continue;
      }
      written += has - had;
      changed.add(
          name
              + " "
              + had
              + " → "
              + has
              + " entries"
              + (capped.get().truncated() ? " (cut to its cap)" : ""));
    }
    String status;
    String changedLine;
    if (changed.isEmpty() && kept.isEmpty()) {
      status = "unchanged";
      changedLine = "nothing (the entries were already consolidated)";
    } else {
      status = changed.isEmpty() ? "changed_meanwhile" : "updated";
      changedLine =
          (changed.isEmpty() ? "nothing" : String.join(", ", changed))
              + " ("
              + before
              + " → "
              + written
              + " entries)"
              + (kept.isEmpty() ? "" : "; kept " + String.join(", ", kept));
    }
    journal(bucket, now, scope, trigger, readLine, patterns, changedLine);
    return result(
        bucket,
        status,
        consolidation.reason().isEmpty() ? changedLine : consolidation.reason(),
        before,
        written,
        merged);
  }

  /** The entries as one JSON object a line, file by file, in file order. */
  private static String entriesText(Read read) {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, StructuredEntries.Document> file : read.documents().entrySet()) {
      for (StructuredEntries.Entry entry : file.getValue().entries()) {
        Map<String, String> item = new LinkedHashMap<>();
        item.put("file", file.getKey());
        item.put("section", entry.section());
        item.put("text", entry.body());
        out.append(JSON.writeValueAsString(item)).append('\n');
      }
    }
    return out.toString().strip();
  }

  private static BucketRun result(
      Bucket bucket, String status, String reason, int before, int after, List<String> merged) {
    return new BucketRun(bucket.scopeName(), bucket.owner(), status, reason, before, after, merged);
  }

  private void journal(
      Bucket bucket,
      ZonedDateTime now,
      String scope,
      String trigger,
      String read,
      String patterns,
      String changed) {
    String entry =
        "## "
            + STAMP.format(now)
            + " · "
            + scope
            + " · structured consolidation ("
            + trigger
            + ")\n- Read: "
            + MemoryExtraction.oneLine(read, 600)
            + "\n- Patterns: "
            + MemoryExtraction.oneLine(patterns, 1000)
            + "\n- Changed: "
            + MemoryExtraction.oneLine(changed, 300);
    parts
        .files()
        .rewrite(
            bucket,
            Dreaming.DREAMS,
            current -> DreamsJournal.append(current, entry, parts.settings().dreamsMaxChars()));
  }

  /** The agent's last run since the provider started. */
  public Optional<Run> lastRun(AgentId agent) {
    return Optional.ofNullable(lastRuns.get(agent));
  }

  /** The agent's next scheduled run, or empty when the schedule is off or has no model. */
  public Optional<Instant> nextRun(AgentId agent) {
    if (!parts.settings().consolidationEnabled() || !parts.model().available()) {
      return Optional.empty();
    }
    return Optional.of(nextRuns.getOrDefault(agent, nextAfter(parts.clock().instant())));
  }

  @Override
  public void close() {
    ScheduledExecutorService thread = scheduler;
    if (thread != null) {
      thread.shutdownNow();
      try {
        thread.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
