package dev.memstack.host.provider;

import dev.memstack.host.provider.CallOutcome.Status;
import dev.memstack.support.CircuitBreaker;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The provider calls of the request path (context, system prompt, feedback): each is started on a
 * bounded pool of daemon threads and awaited with a deadline, so that a late provider never holds
 * up the answer; on the pool thread the call runs through {@link ProviderCalls} (class loader and
 * metrics). A call {@linkplain #start started} for a hook is also guarded by the provider
 * instance's circuit breaker for that hook ({@link Breakers}): an open breaker refuses it without
 * calling, and awaiting it gives the breaker its verdict — an answer is a success; a timeout, an
 * error or a {@code null} answer a failure; a call refused as busy, or one the provider declined
 * with {@link dev.memstack.spi.ProviderUnavailableException} (its own breaker is open), is no
 * verdict, so a provider's fail-fast never opens the host's breaker too. Start every call first and
 * then await each one exactly once, so that every breaker that let a call through gets its verdict.
 *
 * <p>A call the caller stops waiting for is never interrupted: it runs to its end in the background
 * (at most {@code maxLateCallsPerProvider} per provider instance; further calls are refused as
 * busy). {@link #close()} refuses new calls, waits a short while for the running ones and leaves
 * the rest to finish alone; it does not interrupt either. It depends on the {@link StackMembers} so
 * that the container closes it before the plugin registry closes the providers, which in turn waits
 * for their running calls. Thread-safe.
 */
public final class RequestCalls implements AutoCloseable {

  private final StackMembers members;
  private final Breakers breakers;
  private final DeadlineCalls deadlines;

  /**
   * @param calls runs and measures each call on its pool thread
   * @param members the stack, for {@link #breakerStates()}
   * @param breakers the circuit breakers of the guarded calls
   * @param maxLateCallsPerProvider most calls of one provider instance that may still run after
   *     their caller gave up ({@code memstack.stack.context.max-late-calls-per-provider})
   * @param threads most pool threads, all providers together ({@code
   *     memstack.stack.context.call-threads})
   */
  public RequestCalls(
      ProviderCalls calls,
      StackMembers members,
      Breakers breakers,
      int maxLateCallsPerProvider,
      int threads) {
    this.members = Objects.requireNonNull(members, "members");
    this.breakers = Objects.requireNonNull(breakers, "breakers");
    this.deadlines = new DeadlineCalls(calls, maxLateCallsPerProvider, threads);
  }

  /** A started (or refused) call; {@link #await} it once. */
  public static final class Pending<T> {
    private final DeadlineCalls.Call<T> call;
    private final CircuitBreaker breaker;

    /**
     * @param call the call on the pool, {@code null} when the breaker refused it
     * @param breaker the breaker waiting for this call's verdict, or {@code null} for none
     */
    private Pending(DeadlineCalls.Call<T> call, CircuitBreaker breaker) {
      this.call = call;
      this.breaker = breaker;
    }

    /**
     * Runs {@code action} once the call has ended or was refused (at once when it has), on the
     * thread that ended it: keep it short (e.g. hand an index to a queue). {@link #await} is still
     * needed, and returns at once after it.
     */
    public void whenDone(Runnable action) {
      if (call == null) {
        action.run();
      } else {
        call.whenDone(action);
      }
    }

    /**
     * Waits until the call ends or {@code deadlineNanos} ({@link System#nanoTime()} scale) and
     * gives the breaker its verdict.
     */
    public CallOutcome<T> await(long deadlineNanos) {
      if (call == null) {
        return new CallOutcome<>(Status.OPEN, null, 0, "circuit breaker open");
      }
      CallOutcome<T> outcome = call.await(deadlineNanos);
      if (outcome.ok() && outcome.value() == null) {
        outcome =
            new CallOutcome<>(
                Status.ERROR, null, outcome.tookNanos(), "the provider returned null");
      }
      if (breaker != null) {
        switch (outcome.status()) {
          case OK -> breaker.onSuccess();
          case BUSY, OPEN -> {
            // not called: the breaker was released when the call was refused
          }
          case UNAVAILABLE -> breaker.onNotCalled(); // the provider's own breaker is open
          default -> breaker.onFailure();
        }
      }
      return outcome;
    }
  }

  /**
   * Starts {@code body} under the member's breaker for {@code hook}; refused at once (no call) when
   * the breaker is open or the member is busy.
   *
   * @param hook the hook name, one of the {@link ProviderCalls} constants; it names the metrics and
   *     chooses the breaker
   */
  public <T> Pending<T> start(StackMember member, String hook, Supplier<T> body) {
    CircuitBreaker breaker = breakers.of(member, hook);
    if (!breaker.tryAcquire()) {
      return new Pending<>(null, null);
    }
    DeadlineCalls.Call<T> call = deadlines.start(member, hook, body);
    if (call.refused()) {
      breaker.onNotCalled();
      return new Pending<>(call, null);
    }
    return new Pending<>(call, breaker);
  }

  /** Starts {@code body} under a deadline only, without a breaker (e.g. feedback). */
  public <T> Pending<T> startWithoutBreaker(StackMember member, String hook, Supplier<T> body) {
    return new Pending<>(deadlines.start(member, hook, body), null);
  }

  /**
   * The circuit breaker state of every enabled provider ({@link Breakers#state}): {@code closed},
   * {@code open}, {@code half_open}.
   */
  public Map<String, String> breakerStates() {
    return breakers.states(members.enabled());
  }

  /** Refuses new calls and waits briefly for the running ones, without interrupting them. */
  @Override
  public void close() {
    deadlines.close();
  }
}
