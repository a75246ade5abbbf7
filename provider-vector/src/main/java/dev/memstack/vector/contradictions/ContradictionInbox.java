package dev.memstack.vector.contradictions;

import dev.memstack.spi.OwnerKey;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the contradiction check does to the store: opens contradictions (a row in the {@link
 * ContradictionQueue} and a {@code contradiction} event in both memories' histories), tells recall
 * which active memories are contradicted, and closes the contradictions of a forgotten memory. With
 * {@code contradiction-check-enabled} off ({@link #enabled()} false) nothing opens, but the open
 * ones are still shown and decided. Thread-safe as the queue and the store are.
 *
 * @param store the records the contradictions name
 * @param queue the open contradictions
 * @param enabled whether a conflicting statement is kept pending instead of superseding the active
 *     one
 */
public record ContradictionInbox(
    MemoryVectorStore store, ContradictionQueue queue, boolean enabled) {

  /** The history event of a memory that a contradiction was opened on. */
  public static final String EVENT = "contradiction";

  /** The metadata key of when a record last changed (epoch millis), as the tools keep it. */
  public static final String UPDATED_AT = MemoryRecord.UPDATED_AT;

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ContradictionInbox.class);

  public ContradictionInbox {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(queue, "queue");
  }

  /**
   * Opens one contradiction of {@code incoming} (already stored, {@link MemoryStatus#PENDING})
   * against each of {@code existing}, each in both memories' histories.
   *
   * @param actor who stated it, or {@code null} for the agent or the provider
   * @return the contradictions opened
   */
  public List<Contradiction> open(
      MemoryRecord incoming, List<MemoryRecord> existing, String actor, Instant now) {
    List<Contradiction> opened = new ArrayList<>();
    for (MemoryRecord old : existing) {
      Contradiction c = Contradiction.between(incoming, old.id(), now);
      if (!queue.add(c)) {
        continue;
      }
      opened.add(c);
      record(
          old,
          actor,
          now,
          EVENT,
          Map.of("other", incoming.id(), "contradiction", c.id(), "role", "existing"));
      record(
          incoming,
          actor,
          now,
          EVENT,
          Map.of(
              "other", old.id(), "contradiction", c.id(), "role", "incoming", "status", "pending"));
    }
    return opened;
  }

  /**
   * The first open contradiction of each of {@code ids} that one contradicts; none with the check
   * off, or when the queue cannot be read (recall goes on without the marks, and the failure is
   * logged).
   */
  public Map<String, Contradiction> marks(Collection<String> ids) {
    if (ids.isEmpty() || !enabled) {
      // with the check off (the default) recall asks nothing more of the queue: no round trip to
      // PostgreSQL on the request path; pairs opened while it was on still wait in the inbox
      return Map.of();
    }
    try {
      Map<String, Contradiction> marks = new LinkedHashMap<>();
      for (Contradiction c : queue.contradicting(ids)) {
        marks.putIfAbsent(c.existing(), c);
      }
      return marks;
    } catch (RuntimeException e) {
      LOG.warn("Could not read the open contradictions of recalled memories: {}", e.toString());
      return Map.of();
    }
  }

  /**
   * Closes the contradictions of {@code forgotten} (just deleted). A pending memory whose only
   * contradicted memory was the forgotten one has nothing left to contradict: it becomes active,
   * and its history says why.
   */
  public void forgotten(String forgotten, String actor, Instant now) {
    for (Contradiction c : queue.removeNaming(forgotten)) {
      if (!c.existing().equals(forgotten)) {
        continue;
      }
      boolean stillOpen =
          queue.visibleTo(c.agent(), c.owner()).stream()
              .anyMatch(other -> other.incoming().equals(c.incoming()));
      MemoryRecord pending = store.get(c.incoming()).map(MemoryRecord::fromDocument).orElse(null);
      if (stillOpen || pending == null || pending.status() != MemoryStatus.PENDING) {
        continue;
      }
      Map<String, Object> changes = new LinkedHashMap<>();
      changes.put(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name());
      changes.put(UPDATED_AT, now.toEpochMilli());
      if (store.updateMetadata(pending.id(), changes)) {
        record(
            pending,
            actor,
            now,
            "status",
            Map.of(
                "status",
                "active",
                "previousStatus",
                "pending",
                "reason",
                "the memory it contradicted was forgotten",
                "other",
                forgotten));
      }
    }
  }

  /** Removes the owner's contradictions (part of erasing the owner). */
  public long deleteOwner(OwnerKey owner) {
    return queue.deleteOwner(owner);
  }

  /**
   * Appends one event to a memory's history; a history that cannot be written is logged, never
   * undoes the change.
   */
  public void record(
      MemoryRecord record, String actor, Instant at, String event, Map<String, String> details) {
    store.history().record(record, at, event, actor, details);
  }
}
