package dev.memstack.vector.types;

import dev.memstack.spi.AgentId;
import java.util.List;
import java.util.Optional;

/**
 * Where an agent's custom memory types are kept: beside the provider's store, so that every host of
 * a shared store sees the same types. Each change is atomic (a second host creating the same key at
 * once finds it {@link Outcome#EXISTS}). Types belong to an agent, not to an owner: erasing an
 * owner leaves them. Implementations are thread-safe.
 */
public interface CustomTypeStore {

  /** What {@link #create} did. */
  enum Outcome {
    CREATED,
    /** The agent already has a custom type of this key; nothing changed. */
    EXISTS,
    /** The agent already has {@code limit} custom types; nothing changed. */
    FULL
  }

  /** The agent's custom types, by key. */
  List<MemoryType> list(AgentId agent);

  /** The agent's custom type of this (normalised) key. */
  Optional<MemoryType> find(AgentId agent, String key);

  /**
   * Adds a custom type unless the agent has one of its key or already has {@code limit} of them.
   */
  Outcome create(AgentId agent, MemoryType type, int limit);

  /**
   * Removes the agent's custom type of this key.
   *
   * @return whether there was one
   */
  boolean delete(AgentId agent, String key);
}
