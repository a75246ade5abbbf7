package dev.memstack.builtin.workspace;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.util.Objects;

/**
 * A set of workspace files that share a scope: an agent's TEAM files, one owner's PERSONAL files of
 * one agent, or the GLOBAL files every agent sees.
 *
 * @param scope never {@code null}
 * @param agent the agent; {@code null} exactly for GLOBAL
 * @param owner the owner; set exactly for PERSONAL
 */
public record Bucket(Scope scope, AgentId agent, OwnerKey owner) {

  private static final Bucket GLOBAL = new Bucket(Scope.GLOBAL, null, null);

  public Bucket {
    Objects.requireNonNull(scope, "scope");
    switch (scope) {
      case GLOBAL -> {
        if (agent != null || owner != null) {
          throw new IllegalArgumentException("a GLOBAL bucket has neither agent nor owner");
        }
      }
      case TEAM -> {
        Objects.requireNonNull(agent, "agent");
        if (owner != null) {
          throw new IllegalArgumentException("a TEAM bucket has no owner");
        }
      }
      case PERSONAL -> {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(owner, "owner");
      }
    }
  }

  /** The agent's shared files. */
  public static Bucket team(AgentId agent) {
    return new Bucket(Scope.TEAM, agent, null);
  }

  /** One owner's own files of one agent. */
  public static Bucket personal(AgentId agent, OwnerKey owner) {
    return new Bucket(Scope.PERSONAL, agent, owner);
  }

  /** The files every agent sees. */
  public static Bucket global() {
    return GLOBAL;
  }

  /**
   * A stable key for indexes and logs: {@code global}, {@code team:a1}, {@code personal:a1:user:1}.
   */
  public String key() {
    return switch (scope) {
      case GLOBAL -> "global";
      case TEAM -> "team:" + agent.value();
      case PERSONAL -> "personal:" + agent.value() + ":" + owner.value();
    };
  }

  /** The lower-case scope name used in tool arguments and answers. */
  public String scopeName() {
    return scope.name().toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public String toString() {
    return key();
  }
}
