package dev.memstack.builtin.extraction;

import dev.memstack.builtin.memory.MemoryFiles;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.LanguageModel;
import java.time.Clock;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * What both memory jobs ({@link MemoryExtraction}, {@link Dreaming}) are built from; none {@code
 * null}.
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

  public MemoryJobParts {
    if (Stream.of(settings, files, templates, model, clock, coordination)
        .anyMatch(Objects::isNull)) {
      throw new NullPointerException("a memory job needs all its parts: " + this);
    }
  }
}
