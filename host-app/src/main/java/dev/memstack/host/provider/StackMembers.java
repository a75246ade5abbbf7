package dev.memstack.host.provider;

import dev.memstack.spi.Embedder;
import java.util.List;
import java.util.Optional;

/**
 * A live view of the providers the stack calls, sorted by {@link StackMember#order()} then {@link
 * StackMember#id()}. Membership changes when a plugin stops, starts or reloads; a reloaded provider
 * is a new {@link StackMember} with the same id. Implementations are thread-safe.
 */
public interface StackMembers {

  /** The running, enabled members in stack order; never {@code null}. */
  List<StackMember> enabled();

  /** The running member with this id, if any. */
  Optional<StackMember> find(String id);

  /**
   * Ids of instances that are configured but not running (disabled, or their plugin is stopped), so
   * that a context answer can report them as {@code disabled}. The default is none.
   */
  default List<String> disabled() {
    return List.of();
  }

  /**
   * Runs {@code listener} after every change of the members (a plugin stopped, started or
   * reloaded), on the thread that made the change, once {@link #enabled()} shows the new members; a
   * listener that throws is logged and does not undo the change. The default never calls it: the
   * members of such a view do not change.
   */
  default void onChange(Runnable listener) {}

  /**
   * The embedder the members were given, so that the stack can score their items against the query
   * with the same model (and the query vector they just computed). The default is none: the stack
   * then ranks by the members' own ranks alone.
   */
  default Optional<Embedder> queryEmbedder() {
    return Optional.empty();
  }
}
