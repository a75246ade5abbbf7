package dev.memstack.spi;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * One call of a provider tool.
 *
 * <p>{@code writable} is what the caller may change: the scopes its token allows it to write, for
 * {@code owner} in {@link Scope#PERSONAL}. A tool that changes a stored record checks the record's
 * scope (and, for personal memory, its owner) against it <em>before</em> it changes anything, with
 * {@link #requireWritable(Scope)}: the host cannot know which record an id names. A read tool may
 * ignore it.
 *
 * @param agent the agent calling, never {@code null}
 * @param owner the owner the call is made for, or {@code null} for shared memory only; the host has
 *     already checked that the caller may act for this owner
 * @param name the tool name, never {@code null}
 * @param arguments the arguments as a JSON object text, never {@code null}
 * @param writable the scopes the caller may change, never {@code null}, may be empty (a read-only
 *     caller); {@link Scope#PERSONAL} means {@code owner}'s personal memory only
 * @param actor who makes the call, as a history may name it (the name of the API token for a call
 *     through the host's API, never its secret), or {@code null} when unknown (the agent itself)
 * @since 0.2.0 for {@code writable}, 0.5.0 for {@code actor}
 */
public record ToolCall(
    AgentId agent,
    OwnerKey owner,
    String name,
    String arguments,
    Set<Scope> writable,
    String actor) {

  public ToolCall {
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(arguments, "arguments");
    EnumSet<Scope> copy = EnumSet.noneOf(Scope.class);
    copy.addAll(Objects.requireNonNull(writable, "writable"));
    if (owner == null) {
      copy.remove(Scope.PERSONAL);
    }
    writable = Collections.unmodifiableSet(copy);
    if (actor != null && actor.isBlank()) {
      actor = null;
    }
  }

  /** A call with no known {@code actor}, as before 0.5.0. */
  public ToolCall(
      AgentId agent, OwnerKey owner, String name, String arguments, Set<Scope> writable) {
    this(agent, owner, name, arguments, writable, null);
  }

  /**
   * A call whose caller may change every scope, the meaning of a call before 0.2.0 (the host had
   * checked everything it could).
   */
  public ToolCall(AgentId agent, OwnerKey owner, String name, String arguments) {
    this(agent, owner, name, arguments, EnumSet.allOf(Scope.class), null);
  }

  /** Whether the caller may change memory of this scope (personal: {@code owner}'s own). */
  public boolean mayWrite(Scope scope) {
    return writable.contains(Objects.requireNonNull(scope, "scope"));
  }

  /**
   * Refuses, before anything changes, a change to memory of a scope the caller may not write.
   *
   * @throws ToolException of kind {@link ToolException.Kind#FORBIDDEN} naming the scope
   */
  public void requireWritable(Scope scope) {
    if (!mayWrite(scope)) {
      throw new ToolException(
          ToolException.Kind.FORBIDDEN,
          "this caller may not change "
              + scope.name().toLowerCase(Locale.ROOT)
              + " memory"
              + (writable.isEmpty() ? " (its access is read-only)" : ""));
    }
  }
}
