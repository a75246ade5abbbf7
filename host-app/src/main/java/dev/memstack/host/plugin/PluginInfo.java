package dev.memstack.host.plugin;

import dev.memstack.support.Require;
import java.util.List;

/**
 * One loaded plugin as the host sees it.
 *
 * @param id the PF4J plugin id, never {@code null}
 * @param version the plugin version, never {@code null}
 * @param state the PF4J state in lower case ({@code started}, {@code stopped}, {@code disabled},
 *     {@code failed}, ...), never {@code null}
 * @param description the plugin description, never {@code null}, may be empty
 * @param requires the host versions the plugin accepts ({@code plugin.requires}), never {@code
 *     null}
 * @param providerTypes the provider types the plugin offers while started, sorted; empty otherwise
 * @param failure why the plugin is disabled or failed; {@code null} when it is not
 */
public record PluginInfo(
    String id,
    String version,
    String state,
    String description,
    String requires,
    List<String> providerTypes,
    String failure) {

  public PluginInfo {
    Require.nonNull("id version state", id, version, state);
    description = description == null ? "" : description;
    requires = requires == null ? "" : requires;
    providerTypes = List.copyOf(providerTypes);
  }
}
