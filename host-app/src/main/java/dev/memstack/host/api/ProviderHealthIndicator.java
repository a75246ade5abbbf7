package dev.memstack.host.api;

import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.stack.MemoryStack;
import dev.memstack.spi.ProviderHealth;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code providers} component of {@code /actuator/health}: {@code UP} while every running
 * provider instance is {@code UP}, {@code DEGRADED} (HTTP 200) as soon as one is {@code DEGRADED}
 * or {@code DOWN}, never {@code DOWN} itself: a provider that fails is left out of context calls
 * and its turns wait in the outbox, so the host still serves. Its details hold one entry per
 * provider, shaped like a component of its own ({@code details.mem0.status}: the provider's own
 * {@code health()}, {@code UP}, {@code DEGRADED} or {@code DOWN}; {@code details.mem0.details}: its
 * type, plugin, circuit breaker state and the provider's detail). The set follows plugin stops and
 * reloads.
 *
 * <p>One indicator rather than one nested component per provider: Spring Boot rolls a composite up
 * with the endpoint's one status order, so a nested {@code DOWN} would make the whole host {@code
 * DOWN} (503) and a load balancer would pull a host that serves every other provider.
 */
public final class ProviderHealthIndicator implements HealthIndicator {

  /** Some provider works with reduced function or not at all; ranks between DOWN and UP. */
  public static final Status DEGRADED = new Status("DEGRADED");

  private final StackMembers members;
  private final ProviderHealthChecker checker;
  private final ObjectProvider<MemoryStack> stack;

  public ProviderHealthIndicator(
      StackMembers members, ProviderHealthChecker checker, ObjectProvider<MemoryStack> stack) {
    this.members = members;
    this.checker = checker;
    this.stack = stack;
  }

  @Override
  public Health health() {
    MemoryStack memoryStack = stack.getIfAvailable();
    Map<String, String> breakers = memoryStack == null ? Map.of() : memoryStack.breakerStates();
    Map<String, Object> providers = new LinkedHashMap<>();
    boolean allUp = true;
    for (StackMember member : members.enabled()) {
      ProviderHealth health = checker.check(member);
      allUp &= health.status() == ProviderHealth.Status.UP;
      providers.put(member.id(), component(member, health, breakers.get(member.id())));
    }
    return (allUp ? Health.up() : Health.status(DEGRADED)).withDetails(providers).build();
  }

  private static Map<String, Object> component(
      StackMember member, ProviderHealth health, String breaker) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("type", member.type());
    details.put("plugin", member.pluginId());
    if (breaker != null) {
      details.put("breaker", breaker);
    }
    if (!health.detail().isEmpty()) {
      details.put("detail", health.detail());
    }
    Map<String, Object> component = new LinkedHashMap<>();
    component.put("status", health.status().name());
    component.put("details", details);
    return component;
  }
}
