package dev.memstack.vector.facts;

/** What consolidation does with one candidate fact. */
enum FactEvent {
  /** A new fact: stored. */
  ADD,
  /** Refines an existing fact: its text is replaced, the old text kept in its history. */
  UPDATE,
  /**
   * Contradicts an existing fact: that one is archived (kept, out of recall) and the new one added.
   */
  DELETE,
  /** Already known: nothing changes. */
  NONE
}
