package dev.memstack.builtin.extraction;

import dev.memstack.builtin.concurrent.DaemonThreads;
import dev.memstack.builtin.memory.MemoryFiles;
import dev.memstack.builtin.memory.SizeCaps;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.Scope;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SOUL growth (the seeds' {@code soul-update-interval}): every {@code soul-update-interval} writes
 * to an agent's TEAM or GLOBAL memory (through the tools or the memory jobs; not {@code SOUL.md}
 * itself, not {@code DREAMS.md} nor the dreaming reports under {@code dreams/}, not the daily-note
 * entries of turns), when a chat model is configured, the agent's TEAM {@code SOUL.md} is rewritten
 * by the model from its current content and the shared memory: the TEAM {@code MEMORY.md}, {@code
 * PROFILE.md} and daily notes of the last {@code emergence-day-range} days, and the GLOBAL {@code
 * MEMORY.md} and {@code PROFILE.md}. No PERSONAL bucket is ever read. The answer {@code
 * {should_update, reason, soul_content}} replaces {@code SOUL.md} when {@code should_update}; the
 * TEAM {@code DREAMS.md} gets an entry either way (lengths before and after, the reason).
 *
 * <p>Writes are counted per agent: in shared mode on the coordination's counter {@code
 * soul-writes:<agent>} ({@link dev.memstack.spi.Coordination#addAndGet}, so exactly one host sees
 * each multiple of the interval), on one host (or while the coordination cannot be reached) in
 * memory. The rewrite runs on one background thread, off the write path, once per crossing; a
 * crossing while the agent's rewrite is still running is skipped. Thread-safe; {@link #close()}
 * stops the thread.
 */
public final class SoulGrowth implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SoulGrowth.class);

  /** The file this grows. */
  public static final WorkspacePath SOUL = WorkspacePath.of("SOUL.md");

  private static final WorkspacePath MEMORY = WorkspacePath.of("MEMORY.md");
  private static final WorkspacePath PROFILE = WorkspacePath.of("PROFILE.md");

  /**
   * One rewrite.
   *
   * @param status {@code updated}, {@code unchanged}, {@code failed} or {@code invalid_answer}
   * @param writes the agent's count of writes that started it (the count since the provider started
   *     on one host; since the counter began in shared mode)
   */
  public record Rewrite(
      Instant time, String status, String reason, long writes, int charsBefore, int charsAfter) {}

  private final MemoryJobParts parts;
  private final Map<AgentId, AtomicLong> localCounts = new ConcurrentHashMap<>();
  private final Map<AgentId, ReentrantLock> locks = new ConcurrentHashMap<>();
  private final Map<AgentId, Rewrite> lastRewrites = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor executor;

  public SoulGrowth(MemoryJobParts parts) {
    this.parts = Objects.requireNonNull(parts, "parts");
    this.executor =
        DaemonThreads.boundedPool(
            1,
            DaemonThreads.named("memstack-builtin-soul"),
            () -> log.warn("SOUL.md rewrite queue is full; a rewrite is dropped"));
  }

  /**
   * Counts one memory write ({@link dev.memstack.builtin.memory.WorkspaceMemory.MemoryWrites}) and,
   * on every multiple of the interval, schedules the agent's rewrite. Returns at once.
   */
  public void written(AgentId agent, Bucket bucket, WorkspacePath path) {
    int interval = parts.settings().soulUpdateInterval();
    if (interval == 0
        || agent == null
        || bucket.scope() == Scope.PERSONAL
        || path.equals(SOUL)
        || path.equals(Dreaming.DREAMS)
        || path.value().startsWith(DreamReports.FOLDER)
        || !parts.model().available()) {
      return;
    }
    long count = count(agent);
    if (count > 0 && count % interval == 0) {
      executor.execute(() -> rewrite(agent, count));
    }
  }

  private long count(AgentId agent) {
    if (parts.coordination().shared()) {
      try {
        return parts.coordination().addAndGet("soul-writes:" + agent.value(), 1);
      } catch (ProviderUnavailableException e) {
        log.debug("SOUL growth of agent {}: counted on this host: {}", agent, e.getMessage());
      }
    }
    return localCounts.computeIfAbsent(agent, a -> new AtomicLong()).incrementAndGet();
  }

  /** The agent's last rewrite since the provider started. */
  public Optional<Rewrite> lastRewrite(AgentId agent) {
    return Optional.ofNullable(lastRewrites.get(agent));
  }

  private void rewrite(AgentId agent, long writes) {
    ReentrantLock lock = locks.computeIfAbsent(agent, a -> new ReentrantLock());
    if (!lock.tryLock()) {
      return;
    }
    try {
      lastRewrites.put(agent, rewriteNow(agent, writes));
    } catch (RuntimeException e) {
      log.warn("SOUL growth of agent {} failed: {}", agent, e.toString());
    } finally {
      lock.unlock();
    }
  }

  private Rewrite rewriteNow(AgentId agent, long writes) {
    MemoryFiles files = parts.files();
    Bucket team = Bucket.team(agent);
    ZonedDateTime now = parts.clock().instant().atZone(parts.clock().getZone());
    DreamsJournal.Writer journal = new DreamsJournal.Writer(parts, team, now, "team · soul update");
    LocalDate today = now.toLocalDate();
    String soul = files.readOrEmpty(team, SOUL);
    List<String> read = new ArrayList<>();
    read.add("SOUL.md (" + soul.length() + " chars)");
    StringBuilder memory = new StringBuilder();
    for (Bucket bucket : List.of(team, Bucket.global())) {
      String label = bucket.scope() == Scope.GLOBAL ? "global" : "team";
      for (WorkspacePath path : List.of(MEMORY, PROFILE)) {
        String content = files.read(bucket, path).orElse("").strip();
        if (!content.isEmpty()) {
          memory.append("### ").append(path.value()).append(" (").append(label).append(")\n");
          memory.append(content).append("\n\n");
          read.add(label + " " + path.value() + " (" + content.length() + " chars)");
        }
      }
    }
    LocalDate from = today.minusDays(parts.settings().emergenceDayRange() - 1L);
    List<MemoryFiles.DailyNote> notes = files.dailyNotes(team, from, today);
    for (MemoryFiles.DailyNote note : notes) {
      memory.append("### ").append(note.path().value()).append(" (team)\n");
      memory.append(note.content().strip()).append("\n\n");
    }
    if (!notes.isEmpty()) {
      read.add(notes.size() + " team daily notes");
    }
    String readLine = String.join(", ", read);
    String why = "write " + writes + " to team memory";
    String user =
        parts.user(
            PromptTemplates.Job.SOUL,
            Map.of(
                "date", today.toString(),
                "writes", Long.toString(writes),
                "soul", soul.strip(),
                "team_memory", memory.isEmpty() ? "(none)" : memory.toString().strip()));
    MemoryJobParts.Reply reply = parts.ask(PromptTemplates.Job.SOUL.system(), user);
    String answer = reply.text();
    if (answer == null) {
      String reason = reply.failure();
      journal.write(readLine, "none (" + reason + ")", "nothing (failed) after " + why);
      return rewrite("failed", reason, writes, soul.length(), soul.length());
    }
    Optional<ModelAnswers.Soul> parsed = ModelAnswers.soul(answer);
    if (parsed.isEmpty()) {
      String reason = "the model's answer holds no JSON object; nothing changed";
      journal.write(readLine, "none (invalid answer)", "nothing after " + why);
      return rewrite("invalid_answer", reason, writes, soul.length(), soul.length());
    }
    ModelAnswers.Soul result = parsed.get();
    String reason = result.reason().isEmpty() ? "(no reason given)" : result.reason();
    if (!result.shouldUpdate() || result.soulContent().isBlank()) {
      journal.write(readLine, reason, "nothing (SOUL.md kept as it was) after " + why);
      return rewrite("unchanged", reason, writes, soul.length(), soul.length());
    }
    SizeCaps.Capped capped;
    try {
      capped = files.replace(team, SOUL, result.soulContent().strip() + "\n");
    } catch (IllegalArgumentException e) {
      journal.write(readLine, reason, "nothing (" + e.getMessage() + ") after " + why);
      return rewrite("failed", e.getMessage(), writes, soul.length(), soul.length());
    }
    int after = capped.content().length();
    journal.write(
        readLine,
        reason,
        "SOUL.md rewritten (" + soul.length() + " → " + after + " chars) after " + why);
    return rewrite("updated", reason, writes, soul.length(), after);
  }

  private Rewrite rewrite(String status, String reason, long writes, int before, int after) {
    return new Rewrite(parts.clock().instant(), status, reason, writes, before, after);
  }

  @Override
  public void close() {
    DaemonThreads.stop(executor);
  }
}
