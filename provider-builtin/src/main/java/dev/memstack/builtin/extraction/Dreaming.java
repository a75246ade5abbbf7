package dev.memstack.builtin.extraction;

import dev.memstack.builtin.concurrent.DaemonThreads;
import dev.memstack.builtin.memory.MemoryFiles;
import dev.memstack.builtin.memory.SizeCaps;
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
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
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

/**
 * Dreaming (the seeds' emergence): the last {@code emergence-day-range} days of daily notes and the
 * current {@code MEMORY.md} go to the host's chat model, whose answer {@code {should_update,
 * reason, memory_content}} replaces {@code MEMORY.md} (capped) when {@code should_update}. Every
 * run appends a dated entry to the bucket's {@code DREAMS.md} (what it read, the patterns it found,
 * what changed), capped by {@link DreamsJournal}. A run covers the agent's TEAM bucket and the
 * PERSONAL buckets of its owners that have daily notes in range, at most {@code
 * emergence-max-owners-per-run} of them, continuing after the last owner done the time before.
 *
 * <p>The schedule ({@code emergence-cron}, default {@code 0 0 3 * * *}, in the clock's zone; off
 * with {@code emergence-enabled=false}) is kept per agent: one daemon thread checks the provider's
 * clock every {@code schedule-check-interval} and runs each agent whose next time has come. Without
 * a chat model the schedule does nothing. Last runs and the owner cursor live in memory; the
 * journal itself is on disk. A scheduled TEAM run without daily notes writes its entry without
 * asking the model. Thread-safe; {@link #close()} stops the thread.
 *
 * <p>Across hosts ({@link Coordination#shared()}): every run, manual or scheduled, holds the lock
 * {@code dreaming:<agent>} (a lease of the model timeout plus 30 s, renewed before each bucket), so
 * no two hosts rewrite one agent's {@code MEMORY.md} at once; a scheduled run, once it holds the
 * lock, claims its slot ({@code dreaming:<agent>} at the scheduled fire time), so one host dreams
 * per schedule; and the owners of a run continue from a shared counter rather than this host's
 * cursor. A slot that passes while the lock is held elsewhere is skipped (as on one host a slot is
 * skipped while a run is still in progress); while the coordination cannot be reached the same slot
 * is tried at the next check, and a manual run answers as one in progress. On one host none of this
 * is asked.
 */
public final class Dreaming implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Dreaming.class);
  private static final WorkspacePath MEMORY = WorkspacePath.of("MEMORY.md");

  /** The journal file, in each dreamed bucket. */
  public static final WorkspacePath DREAMS = WorkspacePath.of("DREAMS.md");

  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT);

  /** What one bucket's dreaming did. */
  public record BucketRun(
      String scope,
      OwnerKey owner,
      String status,
      String reason,
      int notesRead,
      boolean memoryChanged,
      boolean memoryTruncated) {}

  /** One run over an agent. */
  public record Run(Instant time, String trigger, String outcome, List<BucketRun> buckets) {

    public Run {
      buckets = List.copyOf(buckets);
    }
  }

  private final MemoryJobParts parts;
  private final DreamReports reports;
  private final Map<AgentId, Instant> nextRuns = new ConcurrentHashMap<>();
  private final Map<AgentId, Run> lastRuns = new ConcurrentHashMap<>();
  private final Map<AgentId, String> ownerCursors = new ConcurrentHashMap<>();
  private final Map<AgentId, ReentrantLock> locks = new ConcurrentHashMap<>();
  private volatile ScheduledExecutorService scheduler;

  public Dreaming(MemoryJobParts parts) {
    this.parts = Objects.requireNonNull(parts, "parts");
    this.reports = new DreamReports(parts.files(), parts.settings().archiveKeepDays());
  }

  /** The structured reports of the runs. */
  public DreamReports reports() {
    return reports;
  }

  /** The clock of runs and schedules. */
  public java.time.Clock clock() {
    return parts.clock();
  }

  /** Starts the scheduler thread (when dreaming is enabled). */
  public void start() {
    if (!parts.settings().emergenceEnabled() || scheduler != null) {
      return;
    }
    ScheduledExecutorService thread =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("memstack-builtin-dreaming"));
    long every = parts.settings().scheduleCheckInterval().toMillis();
    thread.scheduleWithFixedDelay(
        () -> {
          try {
            tick();
          } catch (RuntimeException e) {
            log.warn("dreaming schedule check failed: {}", e.toString());
          }
        },
        every,
        every,
        TimeUnit.MILLISECONDS);
    scheduler = thread;
  }

  /**
   * Runs every agent whose scheduled time has come by the clock; an agent seen for the first time
   * gets its next time. Does nothing when dreaming is off or no chat model is configured.
   *
   * @return how many agents ran
   */
  public int tick() {
    if (!parts.settings().emergenceEnabled() || !parts.model().available()) {
      return 0;
    }
    Instant now = parts.clock().instant();
    int ran = 0;
    for (AgentId agent : parts.files().agents()) {
      Instant next = nextRuns.computeIfAbsent(agent, a -> nextAfter(now));
      if (!now.isBefore(next)) {
        Attempt attempt = attempt(agent, null, "scheduled", next.toString(), null);
        if (attempt.unreachable()) {
          continue; // the same slot at the next check, so still once per schedule
        }
        nextRuns.put(agent, nextAfter(now));
        Optional<Run> run = attempt.run();
        if (run.isPresent()) {
          ran++;
          log.info("dreaming of agent {}: {}", agent, run.get().outcome());
        }
      }
    }
    return ran;
  }

  private Instant nextAfter(Instant time) {
    return parts.settings().emergenceCron().next(time.atZone(parts.clock().getZone())).toInstant();
  }

  /**
   * Dreams now: for {@code owner}'s PERSONAL bucket only when given (or TEAM when per-owner memory
   * is off), otherwise for TEAM and the owners with daily notes in range.
   *
   * @param trigger {@code manual} or {@code scheduled}
   * @return the run, or empty when a run of the agent is already in progress (or no chat model)
   */
  public Optional<Run> run(AgentId agent, OwnerKey owner, String trigger) {
    return attempt(agent, owner, trigger, null, null).run();
  }

  /**
   * Dreams now on one topic only: {@code owner}'s bucket when given, else the team's; the model is
   * told to change only what concerns the topic.
   *
   * @return the run, or empty when a run of the agent is already in progress (or no chat model)
   */
  public Optional<Run> focused(AgentId agent, OwnerKey owner, String topic) {
    return attempt(agent, owner, "focused", null, Objects.requireNonNull(topic, "topic")).run();
  }

  /** A run, or none; {@code unreachable} when the coordination could not be asked. */
  private record Attempt(Optional<Run> run, boolean unreachable) {
    static final Attempt NONE = new Attempt(Optional.empty(), false);
    static final Attempt UNREACHABLE = new Attempt(Optional.empty(), true);
  }

  /**
   * As {@link #run(AgentId, OwnerKey, String)}; a scheduled run across hosts also claims {@code
   * slot} (its fire time), after it holds the agent's lock and before it reads anything: of the
   * hosts that see the slot, the first to hold the lock runs it and the others find it claimed. A
   * slot that passes while another host holds the lock (a run in progress, or a host that died in
   * one, until the lease passes) is skipped, as a single host skips a slot while it still dreams.
   */
  private Attempt attempt(
      AgentId agent, OwnerKey owner, String trigger, String slot, String topic) {
    if (!parts.model().available()) {
      return Attempt.NONE;
    }
    ReentrantLock lock = locks.computeIfAbsent(agent, a -> new ReentrantLock());
    if (!lock.tryLock()) {
      return Attempt.NONE;
    }
    Coordination.Lease shared = null;
    try {
      if (parts.coordination().shared()) {
        try {
          shared =
              parts.coordination().tryLock("dreaming:" + agent.value(), sharedLease()).orElse(null);
        } catch (ProviderUnavailableException e) {
          log.warn("dreaming of agent {} not started: {}", agent, e.getMessage());
          return Attempt.UNREACHABLE;
        }
        if (shared == null) {
          return Attempt.NONE; // running on another host
        }
        if (slot != null) {
          boolean claimed;
          try {
            claimed = parts.coordination().claimRun("dreaming:" + agent.value(), slot);
          } catch (ProviderUnavailableException e) {
            log.warn("dreaming of agent {} at {} not started: {}", agent, slot, e.getMessage());
            return Attempt.UNREACHABLE;
          }
          if (!claimed) {
            log.debug("dreaming of agent {} at {}: run by another host", agent, slot);
            return Attempt.NONE;
          }
        }
      }
      boolean manual = trigger.equals("manual");
      List<BucketRun> results = new ArrayList<>();
      if (owner != null) {
        results.add(dream(parts.files().ownerBucket(agent, owner), trigger, true, topic));
      } else if (topic != null) {
        results.add(dream(Bucket.team(agent), trigger, true, topic));
      } else {
        results.add(dream(Bucket.team(agent), trigger, manual, null));
        if (parts.files().perOwner()) {
          for (OwnerKey next : ownersThisRun(agent)) {
            renew(shared, agent);
            BucketRun result = dream(Bucket.personal(agent, next), trigger, false, null);
            if (!result.status().equals("no_notes")) {
              results.add(result);
            }
          }
        }
      }
      Run run = new Run(parts.clock().instant(), trigger, summary(results), results);
      lastRuns.put(agent, run);
      return new Attempt(Optional.of(run), false);
    } finally {
      if (shared != null) {
        shared.close();
      }
      lock.unlock();
    }
  }

  /**
   * A lease long enough for one bucket (its model call and its writes); renewed before each further
   * bucket, so a host that dies in a run holds the agent's dreaming for at most this long.
   */
  private Duration sharedLease() {
    return parts.settings().modelTimeout().plusSeconds(30);
  }

  private static void renew(Coordination.Lease lease, AgentId agent) {
    if (lease == null) {
      return;
    }
    try {
      if (!lease.renew()) {
        log.warn("dreaming of agent {}: the lock's lease passed during the run", agent);
      }
    } catch (ProviderUnavailableException e) {
      log.debug("dreaming of agent {}: lease not renewed: {}", agent, e.getMessage());
    }
  }

  /** The owners to dream this run, continuing after the last owner of the previous run. */
  private List<OwnerKey> ownersThisRun(AgentId agent) {
    List<OwnerKey> owners = parts.files().owners(agent);
    int max = parts.settings().emergenceMaxOwners();
    if (max == 0 || owners.size() <= max) {
      return owners;
    }
    if (parts.coordination().shared()) {
      // the hosts take turns at dreaming: continue where the last run on any host ended
      try {
        long end = parts.coordination().addAndGet("dreaming-owners:" + agent.value(), max);
        int from = (int) Math.floorMod(end - max, (long) owners.size());
        List<OwnerKey> chosen = new ArrayList<>();
        for (int i = 0; i < max; i++) {
          chosen.add(owners.get((from + i) % owners.size()));
        }
        return chosen;
      } catch (ProviderUnavailableException e) {
        log.debug("dreaming of agent {}: this host's owner cursor: {}", agent, e.getMessage());
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

  private BucketRun dream(Bucket bucket, String trigger, boolean askWithoutNotes, String topic) {
    ZonedDateTime now = parts.clock().instant().atZone(parts.clock().getZone());
    LocalDate today = now.toLocalDate();
    LocalDate from = today.minusDays(parts.settings().emergenceDayRange() - 1L);
    List<MemoryFiles.DailyNote> notes = parts.files().dailyNotes(bucket, from, today);
    String memory = parts.files().readOrEmpty(bucket, MEMORY);
    String scope = bucket.scope() == Scope.PERSONAL ? "personal " + bucket.owner() : "team";
    String read =
        "MEMORY.md ("
            + memory.length()
            + " chars); "
            + (notes.isEmpty()
                ? "no daily notes since " + from
                : notes.size()
                    + " daily notes ("
                    + String.join(", ", notes.stream().map(n -> n.path().value()).toList())
                    + ")");
    if (notes.isEmpty() && !askWithoutNotes) {
      if (bucket.scope() != Scope.PERSONAL) {
        journal(bucket, now, scope, trigger, read, "none (nothing new to consolidate)", "nothing");
      }
      return new BucketRun(
          bucket.scopeName(),
          bucket.owner(),
          "no_notes",
          "no daily notes in range",
          0,
          false,
          false);
    }
    StringBuilder noteText = new StringBuilder();
    for (MemoryFiles.DailyNote note : notes) {
      noteText.append("### ").append(note.path().value()).append('\n');
      noteText.append(note.content().strip()).append("\n\n");
    }
    String user =
        parts
            .templates()
            .render(
                PromptTemplates.EMERGENCE_USER,
                Map.of(
                    "date", today.toString(),
                    "scope", scope,
                    "memory", memory.strip(),
                    "day_range", Integer.toString(parts.settings().emergenceDayRange()),
                    "note_count", Integer.toString(notes.size()),
                    "daily_notes", noteText.isEmpty() ? "(none)" : noteText.toString().strip()));
    if (topic != null) {
      user +=
          "\n\nFocus: consider only what concerns the topic \""
              + topic
              + "\". Keep every other line of MEMORY.md exactly as it is.";
    }
    String answer;
    try {
      answer =
          parts
              .model()
              .complete(
                  parts.templates().render(PromptTemplates.EMERGENCE_SYSTEM, Map.of()),
                  user,
                  parts.settings().modelTimeout());
    } catch (RuntimeException e) {
      String reason =
          e instanceof LanguageModel.NoLanguageModelException
              ? "no chat model configured"
              : "the chat model failed: " + e.getMessage();
      log.warn("dreaming of {}: {}", bucket, reason);
      journal(bucket, now, scope, trigger, read, "none (" + reason + ")", "nothing (failed)");
      return new BucketRun(
          bucket.scopeName(), bucket.owner(), "failed", reason, notes.size(), false, false);
    }
    Optional<ModelAnswers.Emergence> parsed = ModelAnswers.emergence(answer);
    if (parsed.isEmpty()) {
      log.warn(
          "dreaming of {}: the model's answer holds no JSON object, nothing changed: {}",
          bucket,
          MemoryExtraction.oneLine(answer, 200));
      journal(
          bucket,
          now,
          scope,
          trigger,
          read,
          "none (the model's answer was not JSON)",
          "nothing (invalid answer)");
      return new BucketRun(
          bucket.scopeName(),
          bucket.owner(),
          "invalid_answer",
          "the model's answer holds no JSON object; nothing changed",
          notes.size(),
          false,
          false);
    }
    ModelAnswers.Emergence emergence = parsed.get();
    String reason = emergence.reason().isEmpty() ? "(no reason given)" : emergence.reason();
    if (!emergence.shouldUpdate() || emergence.memoryContent().isBlank()) {
      journal(bucket, now, scope, trigger, read, reason, "nothing (MEMORY.md kept as it was)");
      report(bucket, trigger, topic, read, reason, memory, null);
      return new BucketRun(
          bucket.scopeName(), bucket.owner(), "unchanged", reason, notes.size(), false, false);
    }
    SizeCaps.Capped capped =
        parts.files().replace(bucket, MEMORY, emergence.memoryContent() + "\n");
    String changed =
        "MEMORY.md replaced ("
            + memory.length()
            + " → "
            + capped.content().length()
            + " chars"
            + (capped.truncated() ? ", cut to its cap" : "")
            + ")";
    journal(bucket, now, scope, trigger, read, reason, changed);
    report(bucket, trigger, topic, read, reason, memory, capped.content());
    return new BucketRun(
        bucket.scopeName(),
        bucket.owner(),
        "updated",
        reason,
        notes.size(),
        true,
        capped.truncated());
  }

  /**
   * Writes the run's structured report beside DREAMS.md; a report that cannot be written is logged
   * (the change it reports is made and journaled).
   */
  private void report(
      Bucket bucket,
      String trigger,
      String topic,
      String read,
      String patterns,
      String before,
      String after) {
    Instant time = parts.clock().instant();
    List<DreamReports.FileChange> changes =
        after == null
            ? List.of()
            : List.of(new DreamReports.FileChange("MEMORY.md", before, after));
    DreamReports.Report report =
        new DreamReports.Report(
            time.toEpochMilli() + "-" + java.util.UUID.randomUUID().toString().substring(0, 8),
            time.toString(),
            trigger,
            bucket.scopeName(),
            bucket.owner() == null ? null : bucket.owner().value(),
            topic,
            read,
            patterns,
            changes,
            after == null ? List.of() : DreamReports.items(before, after));
    try {
      reports.append(bucket, report, time);
    } catch (RuntimeException e) {
      log.warn("dreaming of {}: the report was not written: {}", bucket, e.toString());
    }
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
            + " · "
            + trigger
            + "\n- Read: "
            + MemoryExtraction.oneLine(read, 600)
            + "\n- Patterns: "
            + MemoryExtraction.oneLine(patterns, 1000)
            + "\n- Changed: "
            + MemoryExtraction.oneLine(changed, 300);
    parts
        .files()
        .rewrite(
            bucket,
            DREAMS,
            current -> DreamsJournal.append(current, entry, parts.settings().dreamsMaxChars()));
  }

  private static String summary(List<BucketRun> results) {
    long updated = results.stream().filter(r -> r.status().equals("updated")).count();
    long failed =
        results.stream()
            .filter(r -> r.status().equals("failed") || r.status().equals("invalid_answer"))
            .count();
    return results.size()
        + " bucket(s) dreamed: "
        + updated
        + " updated, "
        + failed
        + " failed, "
        + (results.size() - updated - failed)
        + " unchanged";
  }

  /** The agent's last run since the provider started. */
  public Optional<Run> lastRun(AgentId agent) {
    return Optional.ofNullable(lastRuns.get(agent));
  }

  /** The agent's next scheduled run, or empty when the schedule is off or has no model. */
  public Optional<Instant> nextRun(AgentId agent) {
    if (!parts.settings().emergenceEnabled() || !parts.model().available()) {
      return Optional.empty();
    }
    return Optional.of(nextRuns.getOrDefault(agent, nextAfter(parts.clock().instant())));
  }

  /** The newest entry of the bucket's DREAMS.md, or {@code null}. */
  public String newestEntry(Bucket bucket) {
    return parts.files().read(bucket, DREAMS).map(DreamsJournal::newest).orElse(null);
  }

  /** Whether dreaming is scheduled at all. */
  public boolean enabled() {
    return parts.settings().emergenceEnabled();
  }

  /** The schedule expression. */
  public String cron() {
    return parts.settings().emergenceCron().toString();
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
