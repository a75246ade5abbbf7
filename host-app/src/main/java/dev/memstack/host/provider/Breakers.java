package dev.memstack.host.provider;

import dev.memstack.spi.MemoryProvider;
import dev.memstack.support.CircuitBreaker;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The circuit breakers of the request path: one per provider instance and hook (a provider whose
 * recall fails may still have a working system-prompt block). The breakers of an id belong to the
 * provider instance they were made for, held weakly: a reloaded provider is a new instance and
 * starts with closed breakers. Thread-safe.
 */
public final class Breakers {

  /** The hooks whose breakers make up the state reported for a provider. */
  private static final List<String> REPORTED =
      List.of(ProviderCalls.PREFETCH, ProviderCalls.SYSTEM_PROMPT_BLOCK);

  /** The breakers of one provider instance, by hook. */
  private record Slot(WeakReference<MemoryProvider> provider, Map<String, CircuitBreaker> byHook) {}

  private final int failureThreshold;
  private final Duration openDuration;
  private final LongSupplier nanoTime;
  private final Map<String, Slot> slots = new ConcurrentHashMap<>();

  /**
   * @param failureThreshold calls in a row that fail or time out before a breaker opens
   * @param openDuration how long an open breaker refuses calls before it lets one trial through
   */
  public Breakers(int failureThreshold, Duration openDuration) {
    this(failureThreshold, openDuration, System::nanoTime);
  }

  public Breakers(int failureThreshold, Duration openDuration, LongSupplier nanoTime) {
    this.failureThreshold = failureThreshold;
    this.openDuration = Objects.requireNonNull(openDuration, "openDuration");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /** The breaker of this provider instance for {@code hook}. */
  public CircuitBreaker of(StackMember member, String hook) {
    Slot slot =
        slots.compute(
            member.id(),
            (id, current) ->
                current != null && current.provider().get() == member.provider()
                    ? current
                    : new Slot(new WeakReference<>(member.provider()), new ConcurrentHashMap<>()));
    return slot.byHook()
        .computeIfAbsent(hook, h -> new CircuitBreaker(failureThreshold, openDuration, nanoTime));
  }

  /**
   * The worst state of the member's recall and system-prompt breakers: open, then half open, then
   * closed.
   */
  public CircuitBreaker.State state(StackMember member) {
    CircuitBreaker.State worst = CircuitBreaker.State.CLOSED;
    for (String hook : REPORTED) {
      CircuitBreaker.State state = of(member, hook).state();
      if (state == CircuitBreaker.State.OPEN
          || (state == CircuitBreaker.State.HALF_OPEN && worst == CircuitBreaker.State.CLOSED)) {
        worst = state;
      }
    }
    return worst;
  }

  /**
   * The {@link #state} of each member by id, in the given order, as {@code closed}, {@code open} or
   * {@code half_open}.
   */
  public Map<String, String> states(List<StackMember> members) {
    Map<String, String> states = new LinkedHashMap<>();
    for (StackMember member : members) {
      states.put(member.id(), state(member).wireName());
    }
    return states;
  }
}
