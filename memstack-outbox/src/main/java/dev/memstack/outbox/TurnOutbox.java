package dev.memstack.outbox;

import dev.memstack.spi.Turn;
import java.util.List;
import java.util.Map;

/**
 * Hands accepted turns to providers off the request path: one ordered queue per provider id,
 * retried while the provider fails, one provider never delaying another. {@link OutboxEngine} is
 * the implementation, over the on-disk {@link FileJournal} (the default) or the {@link
 * MemoryJournal} ({@code memstack.outbox.type=memory}). Implementations are thread-safe.
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
   * Stops delivery; turns still queued are delivered after the next start with a persistent journal
   * and lost with the memory journal.
   */
  @Override
  void close();
}
