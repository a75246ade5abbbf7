package dev.memstack.springai;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * Counts the advisor's calls to the host in {@code memstack.advisor.calls}, tagged {@code
 * operation} ({@code context}, {@code turn}) and {@code outcome} ({@code ok}, {@code timeout},
 * {@code unreachable}, {@code host_error}, {@code refused}, {@code rejected}). Needs {@code
 * micrometer-core} on the class path, which the advisor itself does not.
 */
public final class MicrometerMemstackMetrics implements MemstackMetrics {

  /** The counter's name. */
  public static final String CALLS = "memstack.advisor.calls";

  private final MeterRegistry registry;

  public MicrometerMemstackMetrics(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public void record(Operation operation, Outcome outcome) {
    Counter.builder(CALLS)
        .description("Calls of the memstack advisor to the memstack host")
        .tag("operation", operation.tag())
        .tag("outcome", outcome.tag())
        .register(registry)
        .increment();
  }
}
