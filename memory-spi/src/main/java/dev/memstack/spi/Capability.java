package dev.memstack.spi;

/** Optional abilities a {@link MemoryProvider} may have. */
public enum Capability {
  /** {@link MemoryProvider#forget(OwnerKey)} erases an owner. */
  FORGET,
  /** Stores PERSONAL memory per owner, so isolation between owners applies to it. */
  PERSONAL_MEMORY,
  /** Stores TEAM or GLOBAL memory that every owner of the agent recalls. */
  SHARED_MEMORY,
  /** {@link MemoryProvider#prefetch(RecallRequest)} finds a synced turn again by its words. */
  RECALLS_TURNS,
  /**
   * {@link MemoryProvider#syncTurns(java.util.List)} takes several turns in one call at a cost well
   * below one call per turn (one embedding call, one index write). The host hands waiting turns
   * over in batches only to providers that claim this; others get them one by one, so that an
   * urgent erasure never waits behind a long batch of slow calls.
   */
  BATCH_SYNC,
  /**
   * {@link MemoryProvider#ownerPromptBlock(AgentId, OwnerKey)} returns the owner's standing memory
   * (e.g. a profile), which the host injects whole on every turn.
   *
   * @since 0.2.0
   */
  OWNER_PROMPT,
  /**
   * {@link MemoryProvider#feedback(AgentId, OwnerKey, java.util.List)} learns from the owner's
   * confirmation that recalled items were used.
   *
   * @since 0.2.0
   */
  FEEDBACK,
  /**
   * Serves workspace files through the standard tools of {@link StandardTools#required(Capability)
   * this capability} (list, read, write, update metadata, search, export and import), with the
   * arguments and answers {@link StandardTools} documents. The host's {@code .../workspace/**}
   * routes call them on a provider that claims this; it never calls a tool by name on a provider
   * that does not.
   *
   * @since 0.2.0
   */
  WORKSPACE_FILES,
  /**
   * Runs memory jobs on demand through the standard tools of {@link
   * StandardTools#required(Capability) this capability} (extract a conversation, dream, the
   * dreaming status), with the arguments and answers {@link StandardTools} documents. The host's
   * memory-job routes call them on a provider that claims this.
   *
   * @since 0.2.0
   */
  MEMORY_JOBS,
  /**
   * May throw {@link TurnRejectedException} for a turn it can never store. The host parks such a
   * turn as a dead letter whether or not this is claimed; claiming it opts into the compatibility
   * kit's check that a rejected turn is parked and the next one delivered (the kit test names a
   * turn the provider rejects).
   *
   * @since 0.5.0
   */
  REJECTS_TURNS,
  /**
   * Serves its memories one by one through the standard tools of {@link
   * StandardTools#required(Capability) this capability} (list, count, list owners, get, set status,
   * edit, delete, history), with the arguments and answers {@link StandardTools} documents. The
   * host's {@code .../memory/items/**} routes call them on a provider that claims this, so an
   * administration page can list, correct and erase memory of any provider that claims it. A delete
   * is a forget: the item's text leaves its history too, which keeps only that a forget happened.
   *
   * @since 0.5.0
   */
  MEMORY_ADMIN,
  /**
   * Trust moves both ways: {@link MemoryProvider#feedback} raises it for the items the owner used,
   * {@link MemoryProvider#wrong} lowers it for the items the owner marked wrong; both count for
   * that owner alone and fade with time. The provider bounds the effect on its order and suppresses
   * (never deletes) an item marked wrong often enough.
   *
   * @since 0.5.0
   */
  TRUST,
  /**
   * Runs the lifecycle loop on its memory through the standard tools of {@link
   * StandardTools#required(Capability) this capability}: structured dreaming reports and the
   * morning card made of them (each item confirmed, edited or forgotten by the owner), a focused
   * dream on one topic, and structured consolidation (near-duplicate entries merged, never more
   * entries than before). The host's {@code .../memory/dream/**} and {@code
   * .../structured-consolidation} routes call them on a provider that claims this; the last one
   * also on a provider that serves {@link StandardTools#RUN_STRUCTURED_CONSOLIDATION} alone.
   *
   * @since 0.5.0
   */
  LIFECYCLE,
  /**
   * Keeps a per-owner decision queue of contradictions (when the provider checks for them): a new
   * statement that conflicts with an active one does not silently replace it; both are kept, the
   * new one pending, until the owner decides through the standard tools of {@link
   * StandardTools#required(Capability) this capability}. The host's {@code .../memory/inbox/**}
   * routes call them on a provider that claims this.
   *
   * @since 0.5.0
   */
  CONTRADICTIONS
}
