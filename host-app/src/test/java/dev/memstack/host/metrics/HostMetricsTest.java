package dev.memstack.host.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.outbox.OutboxStats;
import dev.memstack.outbox.TurnOutbox;
import dev.memstack.spi.Turn;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The host's gauges")
class HostMetricsTest {

  private final Map<String, OutboxStats> backlog = new ConcurrentHashMap<>();
  private final Map<String, String> breakers = new ConcurrentHashMap<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  HostMetricsTest() {
    new HostMetrics(
            List.of("builtin", "mem0"), new FixedOutbox(backlog), () -> Map.copyOf(breakers))
        .bindTo(registry);
  }

  @Test
  void readTheOutboxBacklogWhenScraped() {
    assertThat(pending("builtin")).isZero();
    assertThat(lagSeconds("builtin")).isZero();
    backlog.put("builtin", new OutboxStats(3, Duration.ofSeconds(42), 10, 1, null));
    assertThat(pending("builtin")).isEqualTo(3);
    assertThat(lagSeconds("builtin")).isEqualTo(42);
    assertThat(pending("mem0")).isZero();
  }

  @Test
  void showOneForTheBreakerStateTheProviderIsIn() {
    breakers.put("builtin", "open");
    assertThat(breaker("builtin", "open")).isEqualTo(1);
    assertThat(breaker("builtin", "closed")).isZero();
    assertThat(breaker("builtin", "half_open")).isZero();
    breakers.put("builtin", "half_open");
    assertThat(breaker("builtin", "open")).isZero();
    assertThat(breaker("builtin", "half_open")).isEqualTo(1);
    // not running: no state at all
    assertThat(breaker("mem0", "closed")).isZero();
    assertThat(breaker("mem0", "open")).isZero();
  }

  private double pending(String id) {
    return registry.get(HostMetrics.OUTBOX_PENDING).tag("provider", id).gauge().value();
  }

  private double lagSeconds(String id) {
    return registry
        .get(HostMetrics.OUTBOX_LAG)
        .tag("provider", id)
        .timeGauge()
        .value(TimeUnit.SECONDS);
  }

  private double breaker(String id, String state) {
    return registry
        .get(HostMetrics.BREAKER)
        .tag("provider", id)
        .tag("state", state)
        .gauge()
        .value();
  }

  /** An outbox that only reports the given backlog. */
  private record FixedOutbox(Map<String, OutboxStats> backlog) implements TurnOutbox {

    @Override
    public void enqueue(Turn turn, List<String> providerIds) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Map<String, OutboxStats> stats() {
      return Map.copyOf(backlog);
    }

    @Override
    public void close() {}
  }
}
