package dev.memstack.host.api;

import dev.memstack.host.plugin.PluginInfo;
import dev.memstack.host.plugin.ProviderRegistry;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import io.swagger.v3.oas.annotations.Operation;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;

/**
 * {@code /api/v1/plugins}: the loaded plugins with their state and provider types, and {@code
 * stop}, {@code start} and {@code reload} of one plugin (reload = stop, unload, load, start; its
 * provider instances are closed and created anew while context calls go on). Listing needs {@code
 * viewer}, the lifecycle calls {@code admin}.
 */
@JsonRoutes("/api/v1/plugins")
public class PluginController {

  private final ProviderRegistry registry;

  public PluginController(ProviderRegistry registry) {
    this.registry = registry;
  }

  /** The list answer. */
  public record Plugins(List<PluginInfo> plugins) {}

  @Operation(summary = "Loaded plugins with their state and provider types")
  @RequiresRole(Role.VIEWER)
  @GetMapping
  public Plugins plugins() {
    return new Plugins(registry.plugins());
  }

  @Operation(summary = "One plugin")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/{pluginId}")
  public PluginInfo plugin(@PathVariable("pluginId") String pluginId) {
    return registry.plugin(pluginId);
  }

  @Operation(
      summary = "Stop, start or reload a plugin",
      description =
          "stop: its provider instances leave the stack; start: its enabled provider instances are"
              + " created; reload: stop, unload, load, start.")
  @RequiresRole(Role.ADMIN)
  @PostMapping({"/{pluginId}/stop", "/{pluginId}/start", "/{pluginId}/reload"})
  public PluginInfo change(@PathVariable("pluginId") String pluginId, HttpServletRequest request) {
    return switch (ApiRequests.lastSegment(request)) {
      case "stop" -> registry.stopPlugin(pluginId);
      case "start" -> registry.startPlugin(pluginId);
      default -> registry.reloadPlugin(pluginId);
    };
  }
}
