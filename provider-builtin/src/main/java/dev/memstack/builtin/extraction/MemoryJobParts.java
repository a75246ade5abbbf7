package dev.memstack.builtin.extraction;

import dev.memstack.builtin.memory.MemoryFiles;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.LanguageModel;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * What the memory jobs ({@link MemoryExtraction}, {@link Dreaming}, {@link
 * StructuredConsolidation}, {@link SoulGrowth}) are built from; none {@code null}.
 *
 * @param settings the jobs' keys
 * @param files the memory files the jobs read and change
 * @param templates the prompts
 * @param model the host's chat model
 * @param clock the time of runs and schedules
 * @param coordination how the hosts sharing a store run a job once ({@link Coordination#local} for
 *     one host)
 */
public record MemoryJobParts(
    MemoryJobSettings settings,
    MemoryFiles files,
    PromptTemplates templates,
    LanguageModel model,
    Clock clock,
    Coordination coordination) {

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(MemoryJobParts.class);

  public MemoryJobParts {
    if (Stream.of(settings, files, templates, model, clock, coordination)
        .anyMatch(Objects::isNull)) {
      throw new NullPointerException("a memory job needs all its parts: " + this);
    }
  }

  /**
   * The chat model's answer, or why there is none.
   *
   * @param text the answer, {@code null} when it failed
   * @param failure {@code no chat model configured} or {@code the chat model failed: <message>};
   *     {@code null} when it answered
   */
  record Reply(String text, String failure) {}

  /**
   * Asks the chat model, within {@code model-timeout}: the system prompt is the template {@code
   * system} rendered without values.
   */
  Reply ask(String system, String user) {
    try {
      return new Reply(
          model.complete(templates.render(system, Map.of()), user, settings.modelTimeout()), null);
    } catch (RuntimeException e) {
      return new Reply(
          null,
          e instanceof LanguageModel.NoLanguageModelException
              ? "no chat model configured"
              : "the chat model failed: " + e.getMessage());
    }
  }

  /** {@code job}'s user template with its placeholders filled from {@code values}. */
  String user(PromptTemplates.Job job, Map<String, String> values) {
    return templates.render(job.user(), values);
  }

  /** {@link #ask} for {@code job}'s system template; a failure is logged as {@code what}'s. */
  Reply ask(PromptTemplates.Job job, String user, String what) {
    Reply reply = ask(job.system(), user);
    if (reply.text() == null) {
      LOG.warn("{}: {}", what, reply.failure());
    }
    return reply;
  }
}
