package dev.memstack.host.coordination;

import dev.memstack.spi.Coordination;
import dev.memstack.spi.SharedDatabase;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Coordination within this host: one {@link Coordination#local} per instance id on the host clock,
 * kept for the host's lifetime, so that claims, locks and counters survive a plugin reload and two
 * instances never share a name.
 */
public final class InProcessCoordination implements ProviderCoordination {

  private final Clock clock;
  private final Map<String, Coordination> byInstance = new ConcurrentHashMap<>();

  public InProcessCoordination(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public Coordination of(String instanceId) {
    Objects.requireNonNull(instanceId, "instanceId");
    return byInstance.computeIfAbsent(instanceId, id -> Coordination.local(clock));
  }

  @Override
  public Optional<SharedDatabase> sharedDatabase() {
    return Optional.empty();
  }
}
