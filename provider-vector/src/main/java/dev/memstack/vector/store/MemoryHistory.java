package dev.memstack.vector.store;

import dev.memstack.spi.OwnerKey;
import java.util.List;

/**
 * The changes of each memory, kept beside the store's records and apart from them: a memory's
 * history outlives a forget of the memory (as one {@code forgotten} event, without its text) and
 * goes with its owner's erasure. Only changes are kept; a memory's creation is read from the
 * memory. Thread-safe; each change is durable when the call returns.
 */
public interface MemoryHistory {

  /** Keeps nothing: for a store without a history. */
  MemoryHistory NONE =
      new MemoryHistory() {
        @Override
        public void append(HistoryEvent event) {}

        @Override
        public List<HistoryEvent> of(String id) {
          return List.of();
        }

        @Override
        public void forget(HistoryEvent forgotten) {}

        @Override
        public long deleteOwner(OwnerKey owner) {
          return 0;
        }
      };

  /** Adds one event. */
  void append(HistoryEvent event);

  /**
   * Adds one event of {@code record}'s history. The change it describes has happened: a history
   * that cannot be written is logged, never undoes or fails the change.
   *
   * @return whether the event was written
   */
  default boolean record(
      MemoryRecord record,
      java.time.Instant at,
      String event,
      String actor,
      java.util.Map<String, String> details) {
    try {
      append(
          new HistoryEvent(record.id(), record.agent(), record.owner(), at, event, actor, details));
      return true;
    } catch (RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(MemoryHistory.class)
          .warn(
              "The history of memory {} misses its {} event: {}", record.id(), event, e.toString());
      return false;
    }
  }

  /** The events of memory {@code id}, oldest first; empty for a memory without changes. */
  List<HistoryEvent> of(String id);

  /**
   * Removes every event of the memory {@code forgotten.id()}, so that none of its texts remains in
   * the history's storage, and keeps {@code forgotten} (an event {@link HistoryEvent#FORGOTTEN}
   * without text) as its only event.
   */
  void forget(HistoryEvent forgotten);

  /**
   * Removes every event of the owner's memories, the forgotten ones included (part of erasing the
   * owner).
   *
   * @return how many events were removed
   */
  long deleteOwner(OwnerKey owner);
}
