package dev.memstack.vector.contradictions;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The open contradictions, kept beside the store's records: a file in the embedded store's folder
 * ({@link FileContradictionQueue}), a table beside the pgvector store's table, shared by every host
 * of that table. Thread-safe; each change is durable when the call returns.
 */
public interface ContradictionQueue {

  /**
   * Opens {@code contradiction}; a contradiction of the same id already open is left as it is.
   *
   * @return whether it was added
   */
  boolean add(Contradiction contradiction);

  /** The open contradiction {@code id}. */
  Optional<Contradiction> get(String id);

  /**
   * The open contradictions a caller of {@code agent} for {@code owner} ({@code null}: shared
   * memory only) sees ({@link Contradiction#visibleTo}), oldest first.
   */
  List<Contradiction> visibleTo(AgentId agent, OwnerKey owner);

  /** The open contradictions whose existing memory is one of {@code existingIds}. */
  List<Contradiction> contradicting(Collection<String> existingIds);

  /**
   * Closes contradiction {@code id}: of two callers removing it at once (also on two hosts), one
   * gets {@code true}.
   */
  boolean remove(String id);

  /** Closes every contradiction that names the memory {@code recordId}, and returns them. */
  List<Contradiction> removeNaming(String recordId);

  /**
   * Removes the owner's contradictions (part of erasing the owner).
   *
   * @return how many were removed
   */
  long deleteOwner(OwnerKey owner);
}
