package dev.memstack.host.plugin;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Where plugins and provider data live and which provider instances run ({@code memstack.*}). The
 * instance defaults ({@code builtin} and {@code vector} enabled, {@code mem0} disabled and
 * optional) come from the host's {@code application.yml}, so a setting such as {@code
 * memstack.providers.mem0.enabled=true} adds to them instead of replacing the map.
 *
 * @param plugins the PF4J plugin folder and how plugins are stopped
 * @param dataDir the folder under which every provider instance gets its own folder {@code
 *     <data-dir>/<instance-id>}
 * @param providers the provider instances, keyed by instance id ({@code memstack.providers.<id>})
 */
@ConfigurationProperties("memstack")
public record PluginHostProperties(
    @DefaultValue Plugins plugins,
    @DefaultValue("./data") Path dataDir,
    Map<String, Instance> providers) {

  public PluginHostProperties {
    plugins = plugins == null ? new Plugins(null, null, null) : plugins;
    dataDir = dataDir == null ? Path.of("./data") : dataDir;
    providers = providers == null ? Map.of() : new TreeMap<>(providers);
  }

  /**
   * The plugin folder ({@code memstack.plugins.*}).
   *
   * @param dir the folder of the plugin zips; default {@code ./plugins}, and when that folder does
   *     not exist but the folder of the running host jar has a {@code plugins} folder, that one
   * @param systemVersion the host version that each plugin's {@code plugin.requires} is checked
   *     against; set by the build, change it only to test plugin compatibility
   * @param closeGracePeriod how long a stop or reload waits for running calls of a provider
   *     instance before it closes the instance anyway
   */
  public record Plugins(
      Path dir,
      @DefaultValue("0.1.0") String systemVersion,
      @DefaultValue("5s") Duration closeGracePeriod) {

    public Plugins {
      systemVersion =
          systemVersion == null || systemVersion.isBlank() ? "0.1.0" : systemVersion.trim();
      closeGracePeriod = closeGracePeriod == null ? Duration.ofSeconds(5) : closeGracePeriod;
      if (closeGracePeriod.isNegative()) {
        throw new IllegalArgumentException(
            "memstack.plugins.close-grace-period must not be negative, got: " + closeGracePeriod);
      }
    }
  }

  /**
   * One provider instance ({@code memstack.providers.<id>.*}).
   *
   * @param type the provider type a plugin offers; defaults to the instance id
   * @param enabled whether the instance runs; a disabled instance is not checked at all
   * @param order the position in the stack, lower first; ties are ordered by instance id
   * @param config the instance's settings, handed to the provider factory as a read-only view
   *     ({@code memstack.providers.<id>.config.<key>})
   * @param optional whether the instance's backlog may never refuse turns: turns waiting for an
   *     optional instance stay outside {@code memstack.outbox.max-pending} (an instance that is
   *     down does not make turns answer 503), up to {@code max-backlog}; default {@code false}
   *     ({@code true} for {@code mem0} in the host's defaults)
   * @param maxBacklog most turns kept waiting for an optional instance; past it the oldest ones are
   *     dropped for it and counted; default 100000 (the default {@code max-pending}); at least 1
   */
  public record Instance(
      String type,
      @DefaultValue("true") boolean enabled,
      @DefaultValue("100") int order,
      Map<String, String> config,
      @DefaultValue("false") boolean optional,
      @DefaultValue("100000") int maxBacklog) {

    public Instance {
      config = config == null ? Map.of() : Map.copyOf(config);
    }
  }
}
