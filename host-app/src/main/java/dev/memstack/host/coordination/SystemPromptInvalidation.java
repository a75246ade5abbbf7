package dev.memstack.host.coordination;

import dev.memstack.spi.AgentId;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What happens when a provider reports that an agent's system-prompt block changed ({@code
 * ProviderContext.systemPromptChanged}): this host's cached prompt is forgotten at once and, in
 * shared mode ({@link SharedPromptInvalidation}), every other host's too. Thread-safe; never throws
 * into the provider that reports.
 */
public interface SystemPromptInvalidation extends AutoCloseable {

  /** Forgets the cached prompt of {@code agentOrNull} (every agent's when {@code null}). */
  void changed(AgentId agentOrNull);

  @Override
  default void close() {}

  /** This host only: {@code invalidate} is the cache's own invalidation. */
  static SystemPromptInvalidation local(Consumer<AgentId> invalidate) {
    Objects.requireNonNull(invalidate, "invalidate");
    return invalidate::accept;
  }
}
