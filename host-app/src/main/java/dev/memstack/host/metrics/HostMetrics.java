package dev.memstack.host.metrics;

import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxStats;
import dev.memstack.outbox.TurnOutbox;
import dev.memstack.support.CircuitBreaker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Gauges per configured provider instance (tag {@code provider}), read when scraped:
 *
 * <ul>
 *   <li>{@value #OUTBOX_PENDING}: turns and erasures waiting in the outbox for the provider;
 *   <li>{@value #OUTBOX_LAG}: how long the oldest of them has waited (0 when none), in seconds;
 *   <li>{@value #OUTBOX_DEAD_LETTERS}: turns the provider would not take, parked as dead letters
 *       (every host's in shared mode; counted at most every two seconds);
 *   <li>{@value #OUTBOX_DROPPED} (a counter): turns of an optional provider dropped since start
 *       because more than its {@code max-backlog} waited (this host's drops in shared mode);
 *   <li>{@value #BREAKER}: 1 for the state (tag {@code state}: {@code closed}, {@code open}, {@code
 *       half_open}) the provider's request-path circuit breaker is in, 0 for the others; all 0
 *       while the provider does not run.
 * </ul>
 *
 * The provider ids are those configured ({@code memstack.providers.*}), fixed for the life of the
 * host; plugin stops and starts change the values, not the set of gauges.
 */
public final class HostMetrics implements MeterBinder {

  public static final String OUTBOX_PENDING = "memstack.outbox.pending";
  public static final String OUTBOX_LAG = "memstack.outbox.lag";
  public static final String OUTBOX_DEAD_LETTERS = "memstack.outbox.dead.letters";
  public static final String OUTBOX_DROPPED = "memstack.outbox.dropped";
  public static final String BREAKER = "memstack.provider.breaker";

  private final List<String> providerIds;
  private final TurnOutbox outbox;
  private final Supplier<Map<String, String>> breakerStates;

  /**
   * @param providerIds the configured provider instance ids
   * @param outbox the turn outbox, whose backlog per provider id is read
   * @param breakerStates the breaker state of each running provider by id ({@code closed}, {@code
   *     open}, {@code half_open})
   */
  public HostMetrics(
      List<String> providerIds, TurnOutbox outbox, Supplier<Map<String, String>> breakerStates) {
    this.providerIds = List.copyOf(providerIds);
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.breakerStates = Objects.requireNonNull(breakerStates, "breakerStates");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    for (String id : providerIds) {
      Gauge.builder(OUTBOX_PENDING, outbox, o -> backlog(o, id).pending())
          .tag("provider", id)
          .description("turns and erasures waiting in the outbox for the provider")
          .register(registry);
      TimeGauge.builder(
              OUTBOX_LAG, outbox, TimeUnit.MILLISECONDS, o -> backlog(o, id).oldestAge().toMillis())
          .tag("provider", id)
          .description("how long the provider's oldest waiting turn or erasure has waited")
          .register(registry);
      if (outbox instanceof OutboxEngine engine) {
        Gauge.builder(
                OUTBOX_DEAD_LETTERS, engine, e -> e.deadLetters().counts().getOrDefault(id, 0))
            .tag("provider", id)
            .description("turns the provider would not take, parked as dead letters")
            .register(registry);
      }
      FunctionCounter.builder(OUTBOX_DROPPED, outbox, o -> dropped(o, id))
          .tag("provider", id)
          .description(
              "turns of an optional provider dropped because more than its max-backlog waited")
          .register(registry);
      for (CircuitBreaker.State state : CircuitBreaker.State.values()) {
        String name = state.wireName();
        Gauge.builder(BREAKER, breakerStates, s -> name.equals(s.get().get(id)) ? 1 : 0)
            .strongReference(true)
            .tag("provider", id)
            .tag("state", name)
            .description("1 for the state the provider's circuit breaker is in, else 0")
            .register(registry);
      }
    }
  }

  private static double dropped(TurnOutbox outbox, String id) {
    return outbox instanceof OutboxEngine engine ? engine.droppedTurns(id) : 0;
  }

  private static OutboxStats backlog(TurnOutbox outbox, String id) {
    OutboxStats stats = outbox.stats().get(id);
    return stats != null ? stats : new OutboxStats(0, java.time.Duration.ZERO, 0, 0, null);
  }
}
