package dev.memstack.host.provider;

import dev.memstack.spi.Capability;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.support.Require;
import java.util.Set;

/**
 * One running provider instance of the stack.
 *
 * @param id the instance id ({@code memstack.providers.<id>}), never {@code null}
 * @param type the provider type its factory offers, never {@code null}
 * @param pluginId the PF4J plugin that supplies the type, never {@code null}
 * @param order the position in the stack; lower comes first
 * @param provider the running instance, never {@code null}
 * @param classLoader the plugin's class loader, set as thread context class loader around calls
 */
public record StackMember(
    String id,
    String type,
    String pluginId,
    int order,
    MemoryProvider provider,
    ClassLoader classLoader) {

  public StackMember {
    Require.nonNull(
        "id type pluginId provider classLoader", id, type, pluginId, provider, classLoader);
    if (id.isBlank()) {
      throw new IllegalArgumentException("stack member id must not be blank");
    }
  }

  /**
   * Whether the provider declares {@code capability} (a {@code null} set declares nothing). Asks
   * the provider under its class loader, unmeasured: throws whatever its {@code capabilities()}
   * throws.
   */
  public boolean claims(Capability capability) {
    Set<Capability> capabilities = PluginClassLoader.call(classLoader, provider::capabilities);
    return capabilities != null && capabilities.contains(capability);
  }
}
