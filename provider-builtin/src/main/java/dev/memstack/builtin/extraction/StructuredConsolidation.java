package dev.memstack.builtin.extraction;

import dev.memstack.builtin.memory.SizeCaps;
import dev.memstack.builtin.memory.StructuredEntries;
import dev.memstack.builtin.store.OwnerErasedException;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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

  /**
   * What one bucket's consolidation did.
   *
   * @param status {@code updated}, {@code unchanged}, {@code below_minimum}, {@code grew} (the
   *     model answered more entries; nothing written), {@code invalid_answer}, {@code failed} or
   *     {@code changed_meanwhile} (a file changed while the model worked; that file kept) or {@code
   *     erased} (the owner was erased while the model worked; nothing written)
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
      List<String> merged)
      implements JobBucket {

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
  private final AgentSchedule<Run> schedule;

  public StructuredConsolidation(MemoryJobParts parts) {
    this.parts = Objects.requireNonNull(parts, "parts");
    this.schedule =
        new AgentSchedule<>(
            parts,
            JOB,
            "structured consolidation",
            parts.settings().consolidation().enabled(),
            parts.settings().consolidation().cron());
  }

  /** Starts the scheduler thread (when the consolidation is enabled). */
  public void start() {
    schedule.start("memstack-builtin-consolidation", this::tick);
  }

  /**
   * Runs every agent whose scheduled time has come by the clock; an agent seen for the first time
   * gets its next time. Does nothing when the consolidation is off or no chat model is configured.
   *
   * @return how many agents ran
   */
  public int tick() {
    return schedule.tick(
        (agent, renew) -> consolidate(agent, null, "scheduled", renew),
        (agent, run) ->
            log.info(
                "structured consolidation of agent {}: {} bucket(s) updated, {} → {} entries",
                agent,
                run.updated(),
                run.entriesBefore(),
                run.entriesAfter()));
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
    return schedule.attempt(agent, null, renew -> consolidate(agent, owner, trigger, renew)).run();
  }

  /** One run over the agent's buckets; {@code renew} before each further bucket. */
  private Run consolidate(AgentId agent, OwnerKey owner, String trigger, Runnable renew) {
    List<BucketRun> results = new ArrayList<>();
    if (owner != null) {
      results.add(consolidate(parts.files().ownerBucket(agent, owner), trigger));
    } else {
      results.add(consolidate(Bucket.team(agent), trigger));
      if (parts.files().perOwner()) {
        for (OwnerKey next :
            schedule.ownersThisRun(agent, parts.settings().consolidation().maxOwners())) {
          renew.run();
          results.add(consolidate(Bucket.personal(agent, next), trigger));
        }
      }
    }
    return summarise(trigger, results);
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

  /** One bucket's consolidation, fenced against the erasure of its owner meanwhile. */
  private BucketRun consolidate(Bucket bucket, String trigger) {
    try {
      return parts.files().asJobOver(bucket.owner(), () -> consolidateOnce(bucket, trigger));
    } catch (OwnerErasedException e) {
      return result(bucket, "erased", e.getMessage(), 0, 0, List.of());
    }
  }

  private BucketRun consolidateOnce(Bucket bucket, String trigger) {
    Read read = read(bucket);
    int before = read.count();
    if (before < parts.settings().consolidation().minEntries()) {
      return result(
          bucket,
          "below_minimum",
          before
              + " entries, fewer than structured-consolidation-min-entries ("
              + parts.settings().consolidation().minEntries()
              + ")",
          before,
          before,
          List.of());
    }
    ZonedDateTime now = parts.clock().instant().atZone(parts.clock().getZone());
    String scope = bucket.scope() == Scope.PERSONAL ? "personal " + bucket.owner() : "team";
    DreamsJournal.Writer journal =
        new DreamsJournal.Writer(
            parts, bucket, now, scope + " · structured consolidation (" + trigger + ")");
    String readLine =
        String.join(
            ", ",
            read.documents().entrySet().stream()
                .map(e -> e.getKey() + " (" + e.getValue().entries().size() + " entries)")
                .toList());
    String user =
        parts.user(
            PromptTemplates.Job.CONSOLIDATION,
            Map.of(
                "date", now.toLocalDate().toString(),
                "scope", scope,
                "entry_count", Integer.toString(before),
                "entries", entriesText(read)));
    MemoryJobParts.Reply reply =
        parts.ask(PromptTemplates.Job.CONSOLIDATION, user, "structured consolidation of " + bucket);
    String answer = reply.text();
    if (answer == null) {
      journal.write(readLine, "none (" + reply.failure() + ")", "nothing (failed)");
      return result(bucket, "failed", reply.failure(), before, before, List.of());
    }
    Optional<ModelAnswers.Consolidation> parsed = ModelAnswers.consolidation(answer);
    if (parsed.isEmpty()) {
      String reason = "the model's answer holds no valid entries list; nothing changed";
      log.warn(
          "structured consolidation of {}: {}: {}",
          bucket,
          reason,
          MemoryExtraction.oneLine(answer, 200));
      journal.write(readLine, "none (invalid answer)", "nothing");
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
        journal.write(readLine, patterns, "nothing (" + reason + ")");
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
      journal.write(readLine, patterns, "nothing (" + reason + ")");
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
    journal.write(readLine, patterns, changedLine);
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

  /** The agent's last run since the provider started. */
  public Optional<Run> lastRun(AgentId agent) {
    return schedule.lastRun(agent);
  }

  /** The agent's next scheduled run, or empty when the schedule is off or has no model. */
  public Optional<Instant> nextRun(AgentId agent) {
    return schedule.nextRun(agent);
  }

  @Override
  public void close() {
    schedule.close();
  }
}
