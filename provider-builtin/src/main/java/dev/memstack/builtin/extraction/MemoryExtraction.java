package dev.memstack.builtin.extraction;

import dev.memstack.builtin.concurrent.DaemonThreads;
import dev.memstack.builtin.memory.SizeCaps;
import dev.memstack.builtin.store.ConversationBuffer;
import dev.memstack.builtin.store.OwnerErasedException;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.support.CoordinatedWork;
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
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Post-turn memory extraction, as the seeds' {@code MemorySummarizationService}: after a turn, off
 * the request path, the conversation's recent messages and the owner's current {@code PROFILE.md},
 * {@code MEMORY.md} and daily note go to the host's chat model, whose JSON answer ({@code
 * should_update, reason, daily_entry, memory_update, profile_update}) replaces {@code PROFILE.md}
 * and {@code MEMORY.md} (only when non-empty, then capped) and is appended to today's daily note —
 * in the owner's PERSONAL bucket when {@code per-owner} is on, else in TEAM.
 *
 * <p>Gates of an automatic run, in order: {@code auto-summarize-enabled}; a {@code cron} turn is
 * skipped with {@code skip-cron-conversations}; a chat model must be configured; the conversation
 * has at least {@code min-messages-for-summarize} messages; the last user message has at least
 * {@code min-user-message-length} characters; the agent and owner are out of their {@code
 * cooldown-minutes}. A run holds a per agent-and-owner lock taken with {@code tryLock}: a run
 * already in progress makes the next one skip, not wait. Automatic runs go to a small executor
 * owned by the provider (two threads, 64 queued runs, more are dropped with a log line). A manual
 * run ({@link #run}) skips the switches and the cooldown but not the lock. An answer without a JSON
 * object changes nothing and is logged. Thread-safe.
 *
 * <p>Across hosts ({@link Coordination#shared()}) the lock and the cooldown hold for every host: a
 * run also takes the lock {@code extraction:<agent>|<owner>} (its lease the model timeout plus a
 * minute) and starts the cooldown of that name, so a turn of the same owner delivered by another
 * host within {@code cooldown-minutes} is skipped there; a manual run starts the cooldown too but
 * is not stopped by it. An unreachable coordination skips the run (reason given). On one host none
 * of this is asked.
 */
public final class MemoryExtraction implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(MemoryExtraction.class);
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT);
  private static final WorkspacePath PROFILE = WorkspacePath.of("PROFILE.md");
  private static final WorkspacePath MEMORY = WorkspacePath.of("MEMORY.md");

  /** What one run did. */
  public record Outcome(
      Status status, String reason, int messages, List<String> written, List<String> truncated) {

    public Outcome {
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(reason, "reason");
      written = List.copyOf(written);
      truncated = List.copyOf(truncated);
    }

    static Outcome of(Status status, String reason, int messages) {
      return new Outcome(status, reason, messages, List.of(), List.of());
    }
  }

  /** How a run ended. */
  public enum Status {
    /** Files were written. */
    UPDATED,
    /** The model saw nothing worth keeping. */
    UNCHANGED,
    /** A gate, the cooldown or a run in progress stopped it before the model. */
    SKIPPED,
    /** The model's answer held no JSON object; nothing changed. */
    INVALID_ANSWER,
    /** No chat model is configured. */
    NO_MODEL,
    /** The model failed or timed out; nothing changed. */
    FAILED,
    /**
     * The owner was erased while the model worked: what it answered was not written (what the run
     * wrote before the erasure went with it).
     */
    ERASED;

    /** The lower-case wire name. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final ConversationBuffer conversations;
  private final MemoryJobParts parts;
  private final Map<String, Instant> lastRuns = new ConcurrentHashMap<>();
  private final Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor executor;

  /**
   * @param conversations the conversation buffer the transcripts come from
   */
  public MemoryExtraction(MemoryJobParts parts, ConversationBuffer conversations) {
    this.parts = Objects.requireNonNull(parts, "parts");
    this.conversations = Objects.requireNonNull(conversations, "conversations");
    this.executor =
        DaemonThreads.boundedPool(
            2,
            DaemonThreads.numbered("memstack-builtin-extraction-"),
            () ->
                log.warn("memory extraction queue is full; an extraction after a turn is dropped"));
  }

  /**
   * Called after a turn was stored: checks the gates and, when they pass, schedules a run on the
   * provider's executor and returns at once.
   *
   * @return why the turn starts no extraction, or empty when one was scheduled
   */
  public Optional<String> afterTurn(Turn turn, ConversationBuffer.Conversation conversation) {
    Optional<String> refused = gate(turn, conversation);
    if (refused.isPresent()) {
      log.debug("no extraction after turn {}: {}", turn.turnId(), refused.get());
      return refused;
    }
    executor.execute(
        () -> {
          try {
            Outcome outcome = run(turn.agent(), turn.owner(), turn.conversationId(), false);
            log.debug(
                "extraction after turn {}: {} ({})",
                turn.turnId(),
                outcome.status().wireName(),
                outcome.reason());
          } catch (RuntimeException e) {
            log.warn("extraction after turn {} failed: {}", turn.turnId(), e.toString());
          }
        });
    return Optional.empty();
  }

  /** The gates of an automatic run; empty when they all pass. */
  Optional<String> gate(Turn turn, ConversationBuffer.Conversation conversation) {
    if (!parts.settings().autoSummarize()) {
      return Optional.of("auto-summarize-enabled is off");
    }
    if (parts.settings().skipCronConversations() && turn.triggerSource() == TriggerSource.CRON) {
      return Optional.of("turns of scheduled jobs are skipped (skip-cron-conversations)");
    }
    if (!parts.model().available()) {
      return Optional.of("no chat model configured");
    }
    if (conversation.totalMessages() < parts.settings().minMessages()) {
      return Optional.of(
          "the conversation has "
              + conversation.totalMessages()
              + " messages, fewer than min-messages-for-summarize "
              + parts.settings().minMessages());
    }
    int length = turn.userMessage().strip().length();
    if (length < parts.settings().minUserMessageLength()) {
      return Optional.of(
          "the last user message has "
              + length
              + " characters, fewer than min-user-message-length "
              + parts.settings().minUserMessageLength());
    }
    return cooling(key(turn.agent(), turn.owner()));
  }

  private Optional<String> cooling(String key) {
    Instant last = lastRuns.get(key);
    if (last != null && parts.clock().instant().isBefore(last.plus(parts.settings().cooldown()))) {
      return Optional.of("cooling down until " + last.plus(parts.settings().cooldown()));
    }
    return Optional.empty();
  }

  /**
   * Runs one extraction for the owner's conversation now, on the calling thread.
   *
   * @param manual a manual run ignores the cooldown (it still sets it) and needs one message only
   */
  public Outcome run(AgentId agent, OwnerKey owner, String conversationId, boolean manual) {
    // fenced from before the conversation is read: what the model makes of it must not land in the
    // owner's files once they are erased (the erasure removes the conversation too)
    OwnerKey fenced = parts.files().ownerBucket(agent, owner).owner();
    try {
      return parts.files().asJobOver(fenced, () -> runOnce(agent, owner, conversationId, manual));
    } catch (OwnerErasedException e) {
      return Outcome.of(Status.ERASED, e.getMessage(), 0);
    }
  }

  private Outcome runOnce(AgentId agent, OwnerKey owner, String conversationId, boolean manual) {
    if (!parts.model().available()) {
      return Outcome.of(Status.NO_MODEL, "no chat model configured", 0);
    }
    String key = key(agent, owner);
    ReentrantLock lock = locks.computeIfAbsent(key, k -> new ReentrantLock());
    if (!lock.tryLock()) {
      return Outcome.of(
          Status.SKIPPED, "an extraction for " + owner + " in agent " + agent + " is running", 0);
    }
    Coordination.Lease shared = null;
    try {
      String sharedName =
          CoordinatedWork.ownerWork(
              "extraction", agent.value(), owner == null ? null : owner.value());
      if (parts.coordination().shared()) {
        try {
          shared =
              parts
                  .coordination()
                  .tryLock(sharedName, parts.settings().modelTimeout().plus(Duration.ofMinutes(1)))
                  .orElse(null);
        } catch (ProviderUnavailableException e) {
          return Outcome.of(Status.SKIPPED, "coordination unavailable: " + e.getMessage(), 0);
        }
        if (shared == null) {
          return Outcome.of(
              Status.SKIPPED,
              "an extraction for " + owner + " in agent " + agent + " is running on another host",
              0);
        }
      }
      if (!manual) {
        Optional<String> cooling = cooling(key);
        if (cooling.isPresent()) {
          return Outcome.of(Status.SKIPPED, cooling.get(), 0);
        }
      }
      ConversationBuffer.Conversation conversation =
          conversations.read(agent, owner, conversationId);
      int needed = manual ? 1 : parts.settings().minMessages();
      if (conversation.messages().size() < needed) {
        return Outcome.of(
            Status.SKIPPED,
            "conversation "
                + conversationId
                + " of "
                + owner
                + " has "
                + conversation.messages().size()
                + " recorded messages; "
                + needed
                + " needed",
            conversation.messages().size());
      }
      if (shared != null && !parts.settings().cooldown().isZero()) {
        boolean started;
        try {
          started = parts.coordination().tryStartCooldown(sharedName, parts.settings().cooldown());
        } catch (ProviderUnavailableException e) {
          return Outcome.of(Status.SKIPPED, "coordination unavailable: " + e.getMessage(), 0);
        }
        if (!started && !manual) {
          return Outcome.of(
              Status.SKIPPED,
              "cooling down: a run for "
                  + owner
                  + " in agent "
                  + agent
                  + " started within cooldown-minutes, on another host",
              0);
        }
      }
      lastRuns.put(key, parts.clock().instant());
      return extract(agent, owner, conversationId, conversation);
    } finally {
      if (shared != null) {
        shared.close();
      }
      lock.unlock();
    }
  }

  private Outcome extract(
      AgentId agent,
      OwnerKey owner,
      String conversationId,
      ConversationBuffer.Conversation conversation) {
    Bucket bucket = parts.files().ownerBucket(agent, owner);
    ZonedDateTime now = parts.clock().instant().atZone(parts.clock().getZone());
    LocalDate today = now.toLocalDate();
    List<ConversationBuffer.Message> messages = conversation.messages();
    List<ConversationBuffer.Message> recent =
        messages.subList(
            Math.max(0, messages.size() - parts.settings().maxTranscriptMessages()),
            messages.size());
    String user =
        parts.user(
            PromptTemplates.Job.SUMMARIZE,
            Map.of(
                "date", today.toString(),
                "profile", parts.files().readOrEmpty(bucket, PROFILE).strip(),
                "memory", parts.files().readOrEmpty(bucket, MEMORY).strip(),
                "daily_note",
                    parts.files().readOrEmpty(bucket, WorkspacePath.dailyNote(today)).strip(),
                "message_count", Integer.toString(recent.size()),
                "transcript", transcript(recent)));
    String system = parts.templates().render(PromptTemplates.Job.SUMMARIZE.system(), Map.of());
    String answer;
    try {
      answer = parts.model().complete(system, user, parts.settings().modelTimeout());
    } catch (LanguageModel.NoLanguageModelException e) {
      return Outcome.of(Status.NO_MODEL, "no chat model configured", recent.size());
    } catch (RuntimeException e) {
      log.warn(
          "memory extraction for {} in {}: the chat model failed: {}",
          owner,
          agent,
          e.getMessage());
      return Outcome.of(Status.FAILED, "the chat model failed: " + e.getMessage(), recent.size());
    }
    Optional<ModelAnswers.Summary> parsed = ModelAnswers.summary(answer);
    if (parsed.isEmpty()) {
      log.warn(
          "memory extraction for {} in {}: the model's answer holds no JSON object, nothing"
              + " changed: {}",
          owner,
          agent,
          abbreviate(answer));
      return Outcome.of(
          Status.INVALID_ANSWER,
          "the model's answer holds no JSON object; nothing changed",
          recent.size());
    }
    ModelAnswers.Summary summary = parsed.get();
    if (!summary.shouldUpdate()) {
      return Outcome.of(
          Status.UNCHANGED,
          summary.reason().isEmpty() ? "nothing worth keeping" : summary.reason(),
          recent.size());
    }
    List<String> written = new ArrayList<>();
    List<String> truncated = new ArrayList<>();
    if (!summary.profileUpdate().isBlank()) {
      SizeCaps.Capped capped =
          parts.files().replace(bucket, PROFILE, summary.profileUpdate() + "\n");
      written.add(PROFILE.value());
      if (capped.truncated()) {
        truncated.add(PROFILE.value());
      }
    }
    if (!summary.memoryUpdate().isBlank()) {
      SizeCaps.Capped capped = parts.files().replace(bucket, MEMORY, summary.memoryUpdate() + "\n");
      written.add(MEMORY.value());
      if (capped.truncated()) {
        truncated.add(MEMORY.value());
      }
    }
    if (!summary.dailyEntry().isBlank()) {
      String entry =
          "### "
              + TIME.format(now)
              + " · memory extracted from conversation "
              + oneLine(conversationId, 64)
              + "\n"
              + summary.dailyEntry().strip();
      if (parts.files().appendToDailyNote(bucket, today, entry)) {
        written.add(WorkspacePath.dailyNote(today).value());
      } else {
        log.warn("daily note {} of {} is full; the extracted entry is not written", today, bucket);
      }
    }
    return new Outcome(
        written.isEmpty() ? Status.UNCHANGED : Status.UPDATED,
        summary.reason().isEmpty() ? "updated" : summary.reason(),
        recent.size(),
        written,
        truncated);
  }

  /** {@code User: ...} / {@code Assistant: ...} lines, each cut with a marker. */
  String transcript(List<ConversationBuffer.Message> messages) {
    StringBuilder out = new StringBuilder();
    for (ConversationBuffer.Message message : messages) {
      String text = message.text();
      boolean cut =
          message.truncated() || text.length() > parts.settings().transcriptMessageChars();
      if (text.length() > parts.settings().transcriptMessageChars()) {
        text = text.substring(0, parts.settings().transcriptMessageChars());
      }
      out.append(message.role().equals("user") ? "User: " : "Assistant: ")
          .append(text.strip())
          .append(cut ? " ... [truncated]" : "")
          .append('\n');
    }
    return out.toString().stripTrailing();
  }

  /** When the last run of the agent and owner started, if there was one. */
  public Optional<Instant> lastRun(AgentId agent, OwnerKey owner) {
    return Optional.ofNullable(lastRuns.get(key(agent, owner)));
  }

  private static String key(AgentId agent, OwnerKey owner) {
    return agent.value() + "\n" + (owner == null ? "" : owner.value());
  }

  static String oneLine(String text, int max) {
    String flat = text.strip().replaceAll("\\s+", " ");
    return flat.length() <= max ? flat : flat.substring(0, max - 1) + "…";
  }

  private static String abbreviate(String answer) {
    return answer == null ? "null" : oneLine(answer, 200);
  }

  @Override
  public void close() {
    DaemonThreads.stop(executor);
  }
}
