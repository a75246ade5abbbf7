package dev.memstack.host.outbox;

import dev.memstack.spi.Turn;
import java.util.List;
import java.util.Map;

/**
 * Hands accepted turns to providers off the request path: one ordered queue per provider id,
 * delivered one at a time, retried while the provider fails, one provider never delaying another.
 * The durable journal of {@code dev.memstack.host.outbox} is the default; the in-memory {@link
 * InMemoryTurnOutbox} takes its place with {@code memstack.outbox.type=memory}. Implementations are
 * thread-safe.
 */
public interface TurnOutbox extends AutoCloseable {

  /**
   * Queues {@code turn} for every provider in {@code providerIds}, all or none.
   *
   * @throws TurnOutboxFullException when a provider's queue is full; nothing is queued then
   * @throws IllegalStateException after {@link #close()}
   */
  void enqueue(Turn turn, List<String> providerIds);

  /** The backlog per provider id that has ever had a turn queued. */
  Map<String, OutboxStats> stats();

  /**
   * Stops delivery; turns still queued are dropped by the in-memory implementation and delivered
   * after the next start by the journal.
   */
  @Override
  void close();
}
