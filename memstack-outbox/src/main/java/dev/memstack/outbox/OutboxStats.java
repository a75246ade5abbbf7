package dev.memstack.outbox;

import java.time.Duration;
import java.util.Objects;

/**
 * The delivery backlog of one provider.
 *
 * @param pending turns accepted but not yet stored by the provider
 * @param oldestAge how long the oldest pending turn has waited; {@link Duration#ZERO} when none
 * @param delivered turns delivered since start
 * @param failedAttempts deliveries that threw (each is retried) since start
 * @param lastError the last delivery failure ({@code Class: message}); {@code null} when none
 */
public record OutboxStats(
    int pending, Duration oldestAge, long delivered, long failedAttempts, String lastError) {

  public OutboxStats {
    Objects.requireNonNull(oldestAge, "oldestAge");
    if (pending < 0 || delivered < 0 || failedAttempts < 0) {
      throw new IllegalArgumentException("outbox counts must not be negative");
    }
  }
}
