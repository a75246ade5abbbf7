package dev.memstack.spi;

/** Who may recall a memory. */
public enum Scope {
  /** Only the owner it belongs to, within one agent. */
  PERSONAL,
  /** Every owner of one agent (the agent's shared memory). */
  TEAM,
  /** Every owner of every agent (preset facts, reference material). */
  GLOBAL
}
