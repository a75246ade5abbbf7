package dev.memstack.builtin.extraction;

import dev.memstack.builtin.memory.MemoryFiles;
import dev.memstack.builtin.memory.SizeCaps;
import dev.memstack.builtin.store.OwnerErasedException;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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

  /** What one bucket's dreaming did. */
  public record BucketRun(
      String scope,
      OwnerKey owner,
      String status,
      String reason,
      int notesRead,
      boolean memoryChanged,
      boolean memoryTruncated)
      implements JobBucket {}

  /** One run over an agent. */
  public record Run(Instant time, String trigger, String outcome, List<BucketRun> buckets) {

    public Run {
      buckets = List.copyOf(buckets);
    }
  }

  private final MemoryJobParts parts;
  private final DreamReports reports;
  private final AgentSchedule<Run> schedule;

  public Dreaming(MemoryJobParts parts) {
    this.parts = Objects.requireNonNull(parts, "parts");
    this.reports = new DreamReports(parts.files(), parts.settings().archiveKeepDays());
    this.schedule =
        new AgentSchedule<>(
            parts,
            "dreaming",
            "dreaming",
            parts.settings().emergenceEnabled(),
            parts.settings().emergenceCron());
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
    schedule.start("memstack-builtin-dreaming", this::tick);
  }

  /**
   * Runs every agent whose scheduled time has come by the clock; an agent seen for the first time
   * gets its next time. Does nothing when dreaming is off or no chat model is configured.
   *
   * @return how many agents ran
   */
  public int tick() {
    return schedule.tick(
        (agent, renew) -> dream(agent, null, "scheduled", null, renew),
        (agent, run) -> log.info("dreaming of agent {}: {}", agent, run.outcome()));
  }

  /**
   * Dreams now: for {@code owner}'s PERSONAL bucket only when given (or TEAM when per-owner memory
   * is off), otherwise for TEAM and the owners with daily notes in range.
   *
   * @param trigger {@code manual} or {@code scheduled}
   * @return the run, or empty when a run of the agent is already in progress (or no chat model)
   */
  public Optional<Run> run(AgentId agent, OwnerKey owner, String trigger) {
    return schedule.attempt(agent, null, renew -> dream(agent, owner, trigger, null, renew)).run();
  }

  /**
   * Dreams now on one topic only: {@code owner}'s bucket when given, else the team's; the model is
   * told to change only what concerns the topic.
   *
   * @return the run, or empty when a run of the agent is already in progress (or no chat model)
   */
  public Optional<Run> focused(AgentId agent, OwnerKey owner, String topic) {
    Objects.requireNonNull(topic, "topic");
    return schedule
        .attempt(agent, null, renew -> dream(agent, owner, "focused", topic, renew))
        .run();
  }

  /** One run over the agent's buckets; {@code renew} before each further bucket. */
  private Run dream(AgentId agent, OwnerKey owner, String trigger, String topic, Runnable renew) {
    boolean manual = trigger.equals("manual");
    List<BucketRun> results = new ArrayList<>();
    if (owner != null) {
      results.add(dream(parts.files().ownerBucket(agent, owner), trigger, true, topic));
    } else if (topic != null) {
      results.add(dream(Bucket.team(agent), trigger, true, topic));
    } else {
      results.add(dream(Bucket.team(agent), trigger, manual, null));
      if (parts.files().perOwner()) {
        for (OwnerKey next : schedule.ownersThisRun(agent, parts.settings().emergenceMaxOwners())) {
          renew.run();
          BucketRun result = dream(Bucket.personal(agent, next), trigger, false, null);
          if (!result.status().equals("no_notes")) {
            results.add(result);
          }
        }
      }
    }
    return new Run(parts.clock().instant(), trigger, summary(results), results);
  }

  /** One bucket's dream, fenced against the erasure of its owner meanwhile. */
  private BucketRun dream(Bucket bucket, String trigger, boolean askWithoutNotes, String topic) {
    try {
      return parts
          .files()
          .asJobOver(bucket.owner(), () -> dreamOnce(bucket, trigger, askWithoutNotes, topic));
    } catch (OwnerErasedException e) {
      return bucketRun(bucket, "erased", e.getMessage(), 0, false, false);
    }
  }

  private BucketRun dreamOnce(
      Bucket bucket, String trigger, boolean askWithoutNotes, String topic) {
    ZonedDateTime now = parts.clock().instant().atZone(parts.clock().getZone());
    LocalDate today = now.toLocalDate();
    LocalDate from = today.minusDays(parts.settings().emergenceDayRange() - 1L);
    List<MemoryFiles.DailyNote> notes = parts.files().dailyNotes(bucket, from, today);
    String memory = parts.files().readOrEmpty(bucket, MEMORY);
    String scope = bucket.scope() == Scope.PERSONAL ? "personal " + bucket.owner() : "team";
    DreamsJournal.Writer journal =
        new DreamsJournal.Writer(parts, bucket, now, scope + " · " + trigger);
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
        journal.write(read, "none (nothing new to consolidate)", "nothing");
      }
      return bucketRun(bucket, "no_notes", "no daily notes in range", 0, false, false);
    }
    StringBuilder noteText = new StringBuilder();
    for (MemoryFiles.DailyNote note : notes) {
      noteText.append("### ").append(note.path().value()).append('\n');
      noteText.append(note.content().strip()).append("\n\n");
    }
    String user =
        parts.user(
            PromptTemplates.Job.EMERGENCE,
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
    MemoryJobParts.Reply reply =
        parts.ask(PromptTemplates.Job.EMERGENCE, user, "dreaming of " + bucket);
    String answer = reply.text();
    if (answer == null) {
      journal.write(read, "none (" + reply.failure() + ")", "nothing (failed)");
      return bucketRun(bucket, "failed", reply.failure(), notes.size(), false, false);
    }
    Optional<ModelAnswers.Emergence> parsed = ModelAnswers.emergence(answer);
    if (parsed.isEmpty()) {
      log.warn(
          "dreaming of {}: the model's answer holds no JSON object, nothing changed: {}",
          bucket,
          MemoryExtraction.oneLine(answer, 200));
      journal.write(read, "none (the model's answer was not JSON)", "nothing (invalid answer)");
      return bucketRun(
          bucket,
          "invalid_answer",
          "the model's answer holds no JSON object; nothing changed",
          notes.size(),
          false,
          false);
    }
    ModelAnswers.Emergence emergence = parsed.get();
    String reason = emergence.reason().isEmpty() ? "(no reason given)" : emergence.reason();
    if (!emergence.shouldUpdate() || emergence.memoryContent().isBlank()) {
      journal.write(read, reason, "nothing (MEMORY.md kept as it was)");
      report(bucket, trigger, topic, read, reason, memory, null);
      return bucketRun(bucket, "unchanged", reason, notes.size(), false, false);
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
    journal.write(read, reason, changed);
    report(bucket, trigger, topic, read, reason, memory, capped.content());
    return bucketRun(bucket, "updated", reason, notes.size(), true, capped.truncated());
  }

  private static BucketRun bucketRun(
      Bucket bucket, String status, String reason, int notes, boolean changed, boolean truncated) {
    return new BucketRun(
        bucket.scopeName(), bucket.owner(), status, reason, notes, changed, truncated);
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
    return schedule.lastRun(agent);
  }

  /** The agent's next scheduled run, or empty when the schedule is off or has no model. */
  public Optional<Instant> nextRun(AgentId agent) {
    return schedule.nextRun(agent);
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
    schedule.close();
  }
}
