package dev.memstack.host.api;

import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.stack.MemoryStack;
import dev.memstack.spi.ProviderHealth;
import java.util.Map;
import java.util.stream.Stream;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code providers} component of {@code /actuator/health}: one component per running provider
 * instance, from its {@code health()} ({@code UP}, {@code DEGRADED} or {@code DOWN}), with its
 * type, plugin, circuit breaker state and the provider's detail. The set follows plugin stops and
 * reloads.
 */
public final class ProviderHealthContributor implements CompositeHealthContributor {

  /** A provider that works with reduced function; ranks between {@code DOWN} and {@code UP}. */
  public static final Status DEGRADED = new Status("DEGRADED");

  private final StackMembers members;
  private final ProviderHealthChecker checker;
  private final ObjectProvider<MemoryStack> stack;

  public ProviderHealthContributor(
      StackMembers members, ProviderHealthChecker checker, ObjectProvider<MemoryStack> stack) {
    this.members = members;
    this.checker = checker;
    this.stack = stack;
  }

  @Override
  public HealthContributor getContributor(String name) {
    return members.find(name).map(this::indicator).orElse(null);
  }

  @Override
  public Stream<Entry> stream() {
    return members.enabled().stream().map(m -> new Entry(m.id(), indicator(m)));
  }

  private HealthIndicator indicator(StackMember member) {
    return () -> health(member);
  }

  private Health health(StackMember member) {
    ProviderHealth health = checker.check(member);
    Status status =
        switch (health.status()) {
          case UP -> Status.UP;
          case DEGRADED -> DEGRADED;
          case DOWN -> Status.DOWN;
        };
    Health.Builder builder =
        Health.status(status)
            .withDetail("type", member.type())
            .withDetail("plugin", member.pluginId());
    MemoryStack memoryStack = stack.getIfAvailable();
    if (memoryStack != null) {
      Map<String, String> breakers = memoryStack.breakerStates();
      String breaker = breakers.get(member.id());
      if (breaker != null) {
        builder.withDetail("breaker", breaker);
      }
    }
    if (!health.detail().isEmpty()) {
      builder.withDetail("detail", health.detail());
    }
    return builder.build();
  }
}
