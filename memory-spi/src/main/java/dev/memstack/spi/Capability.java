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
  RECALLS_TURNS
}
