package dev.memstack.host.api;

import dev.memstack.host.plugin.ProviderInstanceInfo;
import dev.memstack.host.plugin.ProviderRegistry;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.host.stack.MemoryStack;
import dev.memstack.spi.ProviderHealth;
import io.swagger.v3.oas.annotations.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/providers}: every configured provider instance with its type, plugin, order,
 * whether it is enabled and running, its health and its circuit breaker. Configuration values are
 * never shown. Needs {@code admin}.
 */
@RestController
public class ProviderController {

  private final ProviderRegistry registry;
  private final ProviderHealthChecker health;
  private final MemoryStack stack;

  public ProviderController(
      ProviderRegistry registry, ProviderHealthChecker health, MemoryStack stack) {
    this.registry = registry;
    this.health = health;
    this.stack = stack;
  }

  /** The list answer. */
  public record Providers(List<ProviderView> providers) {}

  /** One instance. */
  public record ProviderView(
      String id,
      String type,
      String plugin,
      int order,
      boolean enabled,
      String state,
      HealthView health,
      String breaker) {}

  /**
   * A provider's health: {@code UP}, {@code DEGRADED} or {@code DOWN} from the provider; {@code
   * DISABLED} or {@code STOPPED} when it does not run.
   */
  public record HealthView(String status, String detail) {}

  @Operation(summary = "Configured provider instances with health and circuit breaker")
  @RequiresRole(Role.ADMIN)
  @GetMapping(path = "/api/v1/providers", produces = MediaType.APPLICATION_JSON_VALUE)
  public Providers providers() {
    Map<String, String> breakers = stack.breakerStates();
    List<ProviderView> views = new ArrayList<>();
    for (ProviderInstanceInfo instance : registry.instances()) {
      HealthView healthView;
      if (instance.running()) {
        StackMember member = registry.find(instance.id()).orElse(null);
        ProviderHealth checked =
            member == null
                ? ProviderHealth.down("stopped while being checked")
                : health.check(member);
        healthView = new HealthView(checked.status().name(), checked.detail());
      } else {
        healthView =
            new HealthView(
                instance.state().toUpperCase(java.util.Locale.ROOT),
                instance.enabled() ? "its plugin is not started" : "disabled by configuration");
      }
      views.add(
          new ProviderView(
              instance.id(),
              instance.type(),
              instance.pluginId(),
              instance.order(),
              instance.enabled(),
              instance.state(),
              healthView,
              breakers.get(instance.id())));
    }
    return new Providers(views);
  }
}
