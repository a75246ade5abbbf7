package dev.memstack.host.stack;

import dev.memstack.spi.AgentId;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The joined system prompt per agent, kept until a provider reports a change ({@link
 * #invalidate(AgentId)}), the set of running providers changes, or, for a prompt that lacks a
 * failed provider's block, until its retry time. A prompt built while an invalidation happened is
 * not stored, so a change is never hidden by a build that raced it. Thread-safe.
 */
public final class SystemPromptCache {

  private record Entry(String prompt, String membership, Instant expiresAt) {}

  private final Map<AgentId, Entry> entries = new ConcurrentHashMap<>();
  private final AtomicLong generation = new AtomicLong();

  /**
   * Forgets the cached prompt of {@code agentOrNull}, or of every agent when it is {@code null}.
   * Cheap; called by providers (through their context) after every write that changes their block.
   */
  public void invalidate(AgentId agentOrNull) {
    generation.incrementAndGet();
    if (agentOrNull == null) {
      entries.clear();
    } else {
      entries.remove(agentOrNull);
    }
  }

  /** How many agents have a cached prompt. */
  public int size() {
    return entries.size();
  }

  /** A stamp to pass to {@link #put}; read it before asking the providers. */
  long stamp() {
    return generation.get();
  }

  /** The cached prompt if it was built for the same providers and has not expired. */
  Optional<String> get(AgentId agent, String membership, Instant now) {
    Entry entry = entries.get(agent);
    if (entry == null
        || !entry.membership().equals(membership)
        || (entry.expiresAt() != null && !now.isBefore(entry.expiresAt()))) {
      return Optional.empty();
    }
    return Optional.of(entry.prompt());
  }

  /**
   * Stores a prompt unless an invalidation happened since {@code stamp}.
   *
   * @param expiresAt {@code null} for a complete prompt, kept until invalidated
   */
  void put(AgentId agent, String membership, String prompt, Instant expiresAt, long stamp) {
    Objects.requireNonNull(prompt, "prompt");
    Entry entry = new Entry(prompt, membership, expiresAt);
    entries.put(agent, entry);
    if (generation.get() != stamp) {
      // An invalidation raced this build; drop what we stored (only if it is still ours).
      entries.remove(agent, entry);
    }
  }
}
