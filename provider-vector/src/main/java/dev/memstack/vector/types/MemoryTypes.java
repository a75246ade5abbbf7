package dev.memstack.vector.types;

import dev.memstack.spi.AgentId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The memory types of each agent: the {@linkplain MemoryType#BUILT_IN built-in} ones, which cannot
 * be created again or deleted, and the agent's custom ones from a {@link CustomTypeStore}.
 * Thread-safe.
 */
public final class MemoryTypes {

  /** How many custom types one agent may have. */
  public static final int MAX_CUSTOM = 100;

  private final CustomTypeStore custom;

  public MemoryTypes(CustomTypeStore custom) {
    this.custom = Objects.requireNonNull(custom, "custom");
  }

  /** The built-in types, then the agent's custom ones by key. */
  public List<MemoryType> all(AgentId agent) {
    List<MemoryType> all = new ArrayList<>(MemoryType.BUILT_IN);
    all.addAll(custom.list(agent));
    return all;
  }

  /** The type of this (normalised) key that the agent has: built in, or its own custom type. */
  public Optional<MemoryType> find(AgentId agent, String key) {
    MemoryType builtIn = MemoryType.builtIn(key);
    return builtIn != null ? Optional.of(builtIn) : custom.find(agent, key);
  }

  /** Adds a custom type; a built-in key is {@link CustomTypeStore.Outcome#EXISTS}. */
  public CustomTypeStore.Outcome create(AgentId agent, MemoryType type) {
    if (type.system()) {
      throw new IllegalArgumentException("type " + type.key() + ": only custom types are created");
    }
    if (MemoryType.builtIn(type.key()) != null) {
      return CustomTypeStore.Outcome.EXISTS;
    }
    return custom.create(agent, type, MAX_CUSTOM);
  }

  /**
   * Removes the agent's custom type of this key; memories of that type stay as they are.
   *
   * @return whether there was one
   * @throws IllegalArgumentException for a built-in type
   */
  public boolean delete(AgentId agent, String key) {
    if (MemoryType.builtIn(key) != null) {
      throw new IllegalArgumentException("type " + key + " is built in");
    }
    return custom.delete(agent, key);
  }
}
