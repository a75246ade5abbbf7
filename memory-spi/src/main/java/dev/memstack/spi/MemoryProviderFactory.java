package dev.memstack.spi;

import org.pf4j.ExtensionPoint;

/**
 * The PF4J extension point of memstack: one factory per provider <em>type</em>. A plugin marks its
 * factory with {@code @org.pf4j.Extension}; PF4J builds it with its no-arg constructor.
 *
 * <p>Discovery makes a type available; configuration activates instances: the host calls {@link
 * #create(ProviderContext)} once per configured instance of the type (a type can be instantiated
 * several times with different configuration), from one thread at a time.
 */
public interface MemoryProviderFactory extends ExtensionPoint {

  /**
   * The provider type this factory builds, e.g. {@code builtin}; lower case {@code
   * [a-z][a-z0-9-]*}, unique among installed plugins, stable across versions.
   */
  String type();

  /**
   * Builds a provider instance from its context. Validate the whole configuration here and throw
   * {@link ProviderConfigException} naming the offending key: the host then refuses to start (or to
   * reload the plugin) with that message. Do expensive set-up here, not on the first call.
   *
   * @param context the instance's id, configuration, data directory and host ports; never {@code
   *     null}
   * @return the provider, never {@code null}
   * @throws ProviderConfigException if the configuration is invalid
   */
  MemoryProvider create(ProviderContext context);
}
