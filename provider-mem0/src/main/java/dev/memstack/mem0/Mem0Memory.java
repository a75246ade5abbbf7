package dev.memstack.mem0;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One memory as a Mem0 search returned it.
 *
 * @param id the server's memory id, or {@code null} when the answer had none
 * @param text the memory text, never blank
 * @param score the server's relevance score, or {@code null} when it sent none
 * @param createdAt when the memory was written, or {@code null}
 * @param updatedAt when it last changed, or {@code null}
 * @param userId the {@code user_id} the server reports for it, or {@code null}
 * @param agentId the {@code agent_id} the server reports for it, or {@code null}
 * @param metadata the memory's scalar metadata as strings; never {@code null}
 */
record Mem0Memory(
    String id,
    String text,
    Double score,
    Instant createdAt,
    Instant updatedAt,
    String userId,
    String agentId,
    Map<String, String> metadata) {

  Mem0Memory {
    Objects.requireNonNull(text, "text");
    if (text.isBlank()) {
      throw new IllegalArgumentException("text must not be blank");
    }
    metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
  }
}
