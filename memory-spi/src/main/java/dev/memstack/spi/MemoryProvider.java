package dev.memstack.spi;

import java.util.List;
import java.util.Set;

/**
 * A configured memory provider instance: a layer of the host's memory stack.
 *
 * <h2>What the host guarantees</h2>
 *
 * <ul>
 *   <li>Every method may be called from many threads at once; implementations are thread-safe.
 *   <li>Each call runs with the plugin's class loader as the thread context class loader.
 *   <li>{@link #syncTurn(Turn)} and {@link #syncTurns(List)} are never called on a request path;
 *       for one provider instance, turns arrive in the order the host accepted them, one call at a
 *       time.
 *   <li>{@link #prefetch(RecallRequest)} and {@link #systemPromptBlock(AgentId)} are called on the
 *       request path under a deadline; the host stops waiting at the deadline and leaves the
 *       provider out of that answer. The late call is not interrupted (an interrupt closes NIO
 *       channels inside libraries such as Lucene or JDBC drivers); it runs to its end in the
 *       background, so a provider should watch {@link RecallRequest#deadline()} and give up early.
 *   <li>A call that throws is isolated: it never fails the other providers. Repeated failures open
 *       a circuit breaker and the host stops calling the provider for a while.
 *   <li>A provider that fails fast without attempting the call, because a dependency is known to be
 *       down (its own breaker is open), throws {@link ProviderUnavailableException}: the host takes
 *       it as no verdict, not as a failure, so it does not open the host's breaker; the call is
 *       otherwise handled like any call without an answer (left out of a recall, a turn retried
 *       later). {@link #callTool(ToolCall)} keeps its own error type: it reports this case as
 *       {@link ToolException.Kind#UNAVAILABLE}.
 *   <li>The host never interrupts a provider call, also not when it stops: at shutdown, and when a
 *       plugin is stopped or reloaded, it lets running calls finish (up to a grace period) and
 *       calls {@link #close()} only after they have ended or the grace period has passed.
 *   <li>After {@link #close()} the host makes no further call; a call that does arrive must fail
 *       with {@link IllegalStateException}.
 * </ul>
 */
public interface MemoryProvider extends AutoCloseable {

  /** The instance id from the host configuration (e.g. {@code builtin}); never {@code null}. */
  String id();

  /**
   * Shared memory for the agent's system prompt: TEAM and GLOBAL memory only, never anything
   * PERSONAL. Must be stable between writes so that model prompt caches hold; the provider calls
   * {@link ProviderContext#systemPromptChanged(AgentId)} when it changes, and the host caches the
   * block until then.
   *
   * @param agent the agent, never {@code null}
   * @return the block, or the empty string when there is nothing; never {@code null}
   */
  String systemPromptBlock(AgentId agent);

  /**
   * The owner's own standing memory for the prompt (a profile, a personal memory file): PERSONAL
   * memory of this owner only, injected whole on every turn beside the shared {@link
   * #systemPromptBlock(AgentId)} and outside the recall budget, so it is never cut by relevance.
   * Like the system prompt block it must be stable between writes and cheap (cache it per owner,
   * invalidated on write): it is on the request path under the same deadline. Only called when
   * {@link #capabilities()} contains {@link Capability#OWNER_PROMPT}. The default is empty.
   *
   * @param agent the agent, never {@code null}
   * @param owner the owner, never {@code null}
   * @return the block, or the empty string when there is nothing; never {@code null}
   * @since 0.2.0
   */
  default String ownerPromptBlock(AgentId agent, OwnerKey owner) {
    return "";
  }

  /**
   * What this owner needs for this query, at most {@code request.limit()} items in non-increasing
   * score order, only memory the request {@link RecallRequest#maySee may see}. Must be fast: it is
   * on the request path. A request that is a {@link RecallRequest#preview() preview} changes
   * nothing a later call reads (no recall tracking of any kind) and answers as a normal one would.
   *
   * @param request the request, never {@code null}
   * @return the recall, never {@code null}
   */
  Recall prefetch(RecallRequest request);

  /**
   * Learns from a finished turn. May be slow; it is never on a request path. Idempotent by {@link
   * Turn#turnId()}: the same turn delivered twice is stored once. Throwing makes the host retry the
   * turn later with backoff.
   *
   * @param turn the turn, never {@code null}
   */
  void syncTurn(Turn turn);

  /**
   * Learns from several finished turns at once, in the order the host accepted them. For a provider
   * that claims {@link Capability#BATCH_SYNC}, the host hands over the turns that wait for it
   * together (at most {@code memstack.outbox.delivery-batch} of them), so it can embed, index and
   * commit them in one go; the default calls {@link #syncTurn(Turn)} for each. A batch should take
   * no longer than a few hundred milliseconds: an owner erasure waits for the call in progress.
   * Same rules as {@link #syncTurn}: idempotent by turn id, and throwing makes the host deliver the
   * turns again, one by one, so a provider may have kept some of them already.
   *
   * @param turns the turns, never {@code null} or empty, no {@code null} elements
   */
  default void syncTurns(List<Turn> turns) {
    for (Turn turn : turns) {
      syncTurn(turn);
    }
  }

  /** The optional capabilities this provider implements; the default is none. */
  default Set<Capability> capabilities() {
    return Set.of();
  }

  /**
   * Tools an agent may call to read or change this provider's memory. Names are unique per
   * provider, {@code [a-z][a-z0-9_]*}. The default is none.
   */
  default List<ToolSpec> tools() {
    return List.of();
  }

  /**
   * Runs one of {@link #tools()}.
   *
   * @param call the tool name, its JSON arguments and who calls it; never {@code null}
   * @return the tool's JSON answer, never {@code null}
   * @throws ToolException for a bad argument, a missing target or a refused operation
   */
  default String callTool(ToolCall call) {
    throw new ToolException(
        ToolException.Kind.NOT_FOUND, "provider " + id() + " has no tool " + call.name());
  }

  /**
   * The owner confirms that recalled items were useful (the model used them in its answer). This is
   * the only signal a provider may learn ranking from: being shown by {@link #prefetch} is not
   * evidence of being useful, and reinforcing whatever was shown makes recall worse with use. The
   * signal counts for this owner only (one owner's feedback never changes another owner's ranking,
   * shared records included), and a provider must bound its effect so that it orders near-ties and
   * never lifts an irrelevant item above a relevant one. Only called when {@link #capabilities()}
   * contains {@link Capability#FEEDBACK}. Never on the recall path; may do I/O.
   *
   * @param agent the agent the items were recalled for, never {@code null}
   * @param owner the owner who used them, never {@code null}
   * @param ids the items' {@code id} metadata as this provider returned it; never {@code null}, no
   *     {@code null} elements. Ids the owner may not see or that do not exist are ignored.
   * @return how many of the ids were applied
   * @since 0.2.0
   */
  default int feedback(AgentId agent, OwnerKey owner, List<String> ids) {
    return 0;
  }

  /**
   * Learns that the owner found recalled items wrong (a thumbs-down): their trust for this owner
   * goes down, and an item marked wrong often enough stops being recalled for this owner (it is
   * suppressed, never deleted). Counts for this owner only, as {@link #feedback} does, and the
   * effect on the order is bounded. Only called when {@link #capabilities()} contains {@link
   * Capability#TRUST}. Never on the recall path; may do I/O.
   *
   * @param agent the agent the items were recalled for, never {@code null}
   * @param owner the owner who marked them, never {@code null}
   * @param ids the items' {@code id} metadata as this provider returned it; never {@code null}, no
   *     {@code null} elements. Ids the owner may not see or that do not exist are ignored.
   * @return how many of the ids were applied
   * @since 0.5.0
   */
  default int wrong(AgentId agent, OwnerKey owner, List<String> ids) {
    return 0;
  }

  /**
   * Erases every memory of the owner held by this provider: PERSONAL memory of every agent. Only
   * called when {@link #capabilities()} contains {@link Capability#FORGET}.
   *
   * @param owner the owner to erase, never {@code null}
   * @return how many records, files or entries were removed (a best effort count)
   */
  default long forget(OwnerKey owner) {
    throw new UnsupportedOperationException("provider " + id() + " cannot forget owners");
  }

  /**
   * Called when a conversation has ended, so that a provider can consolidate it. The default does
   * nothing. Never on a request path.
   */
  default void onSessionEnd(AgentId agent, OwnerKey owner, String conversationId) {}

  /** A cheap health check; the default is {@link ProviderHealth#up()}. Must not block for long. */
  default ProviderHealth health() {
    return ProviderHealth.up();
  }

  /**
   * Releases files, connections and threads. Called once, after the last call to any other method
   * has returned or been abandoned. Must not throw.
   */
  @Override
  default void close() {}
}
