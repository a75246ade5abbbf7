package dev.memstack.host.plugin;

import dev.memstack.support.Require;

/**
 * One configured provider instance ({@code memstack.providers.<id>}) and whether it runs. Carries
 * no configuration values, so it is safe to show.
 *
 * @param id the instance id, never {@code null}
 * @param type the provider type, never {@code null}
 * @param pluginId the plugin that offers the type; {@code null} when no started plugin does
 * @param order the position in the stack
 * @param enabled whether the configuration enables the instance
 * @param state {@value #RUNNING}, {@value #DISABLED} (by configuration) or {@value #STOPPED} (its
 *     plugin is stopped or its type is not offered)
 */
public record ProviderInstanceInfo(
    String id, String type, String pluginId, int order, boolean enabled, String state) {

  public static final String RUNNING = "running";
  public static final String DISABLED = "disabled";
  public static final String STOPPED = "stopped";

  public ProviderInstanceInfo {
    Require.nonNull("id type state", id, type, state);
  }

  public boolean running() {
    return RUNNING.equals(state);
  }
}
