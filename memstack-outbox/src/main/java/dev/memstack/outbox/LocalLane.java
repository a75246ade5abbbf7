package dev.memstack.outbox;

import dev.memstack.outbox.journal.Journal;
import java.util.function.LongSupplier;

/**
 * A lane over a journal only this host writes: the engine hands it every record for its provider
 * (in position order, under the engine's append lock), and it delivers whatever is durable.
 */
final class LocalLane extends Lane {

  LocalLane(String providerId, long start, LongSupplier handedOut, LaneSetup setup) {
    super(providerId, providerId, start, handedOut, setup);
  }

  @Override
  boolean leased() {
    return true;
  }

  @Override
  synchronized int addErase(Journal.Entry entry, Urgent request) {
    queue.addLast(entry);
    horizon = entry.position() + 1;
    return dropTurnsOf(entry.owner(), entry.position(), request);
  }

  @Override
  boolean ready() {
    return true;
  }

  @Override
  long pollMillis() {
    return 0;
  }

  @Override
  boolean claim(Work work) {
    return true;
  }

  @Override
  long durable() {
    return journal.durablePosition();
  }

  @Override
  boolean mayErase(Urgent request) {
    return request.upTo() < journal.durablePosition();
  }
}
