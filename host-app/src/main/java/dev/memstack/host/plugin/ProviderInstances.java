package dev.memstack.host.plugin;

import dev.memstack.host.plugin.PluginCatalog.TypeOffer;
import dev.memstack.host.provider.PluginClassLoader;
import dev.memstack.host.provider.StackMember;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The configured provider instances ({@code memstack.providers.*}) and how one is created: with its
 * own folder {@code <memstack.data-dir>/<id>} and a {@link HostProviderContext}, by its type's
 * factory under the plugin's class loader, wrapped in a {@link TrackedMemoryProvider}. A bad id, an
 * unknown type, a missing plugin or an invalid setting throws {@link ProviderStartupException}
 * naming the key. Thread-safe.
 */
final class ProviderInstances {

  private static final Logger log = LoggerFactory.getLogger(ProviderInstances.class);

  /** Instance ids become folder names and metric tags. */
  private static final Pattern INSTANCE_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  /** A configured instance with its type resolved. */
  record Configured(
      String id, String type, int order, boolean enabled, Map<String, String> config) {}

  private final List<Configured> configured;
  private final PluginCatalog catalog;
  private final Path dataDir;
  private final ProviderPorts ports;

  ProviderInstances(
      Map<String, PluginHostProperties.Instance> providers,
      PluginCatalog catalog,
      Path dataDir,
      ProviderPorts ports) {
    this.configured = configured(providers);
    this.catalog = catalog;
    this.dataDir = dataDir;
    this.ports = ports;
  }

  private static List<Configured> configured(Map<String, PluginHostProperties.Instance> providers) {
    List<Configured> result = new ArrayList<>();
    providers.forEach(
        (id, instance) -> {
          if (!INSTANCE_ID.matcher(id).matches()) {
            throw new ProviderStartupException(
                "memstack.providers." + id,
                "an instance id must be 1-64 characters of [A-Za-z0-9_-]");
          }
          String type =
              instance.type() == null || instance.type().isBlank() ? id : instance.type().trim();
          result.add(
              new Configured(id, type, instance.order(), instance.enabled(), instance.config()));
        });
    result.sort(Comparator.comparingInt(Configured::order).thenComparing(Configured::id));
    return List.copyOf(result);
  }

  /** Every configured instance, enabled or not, in stack order. */
  List<Configured> configured() {
    return configured;
  }

  /**
   * Creates the instance from the type its plugin offers.
   *
   * @param offers the types of the started plugins
   * @throws ProviderStartupException naming the key at fault
   */
  StackMember create(Configured instance, Map<String, TypeOffer> offers) {
    String typeKey = "memstack.providers." + instance.id() + ".type";
    TypeOffer offer = offers.get(instance.type());
    if (offer == null) {
      throw new ProviderStartupException(
          typeKey,
          "no started plugin offers provider type '"
              + instance.type()
              + "' (available types: "
              + (offers.isEmpty() ? "none" : String.join(", ", new TreeMap<>(offers).keySet()))
              + catalog.notStartedPlugins()
              + "; plugin folder: "
              + catalog.roots()
              + ")");
    }
    Path dir = dataDir.resolve(instance.id());
    try {
      Files.createDirectories(dir);
    } catch (IOException | RuntimeException e) {
      throw new ProviderStartupException(
          "memstack.data-dir", "cannot create the folder " + dir + ": " + e, e);
    }
    String configPrefix = "memstack.providers." + instance.id() + ".config";
    HostProviderContext context =
        new HostProviderContext(
            instance.id(),
            ProviderConfig.of(configPrefix, instance.config()),
            dir,
            ports.clock(),
            ports.embedder(),
            ports.languageModel(),
            ports.promptInvalidation(),
            ports.coordination().of(instance.id()),
            ports.coordination().sharedDatabase());
    MemoryProvider provider;
    try {
      provider = PluginClassLoader.call(offer.classLoader(), () -> offer.factory().create(context));
    } catch (ProviderConfigException e) {
      throw new ProviderStartupException(e.key(), problemOf(e), e);
    } catch (RuntimeException | LinkageError e) {
      throw new ProviderStartupException(
          "memstack.providers." + instance.id(),
          "provider type '" + instance.type() + "' of plugin " + offer.pluginId() + " failed: " + e,
          e);
    }
    if (provider == null) {
      throw new ProviderStartupException(
          "memstack.providers." + instance.id(),
          "the factory of provider type '" + instance.type() + "' returned no provider");
    }
    String reportedId = PluginClassLoader.call(offer.classLoader(), provider::id);
    if (!instance.id().equals(reportedId)) {
      log.warn(
          "Provider {} reports the id '{}'; the host uses the configured id",
          instance.id(),
          reportedId);
    }
    TrackedMemoryProvider tracked =
        new TrackedMemoryProvider(instance.id(), provider, offer.classLoader());
    log.info(
        "Provider {} started (type {}, plugin {}, order {}, data {})",
        instance.id(),
        instance.type(),
        offer.pluginId(),
        instance.order(),
        dir);
    return new StackMember(
        instance.id(),
        instance.type(),
        offer.pluginId(),
        instance.order(),
        tracked,
        offer.classLoader());
  }

  /** The message of a config exception without the key it already starts with. */
  private static String problemOf(ProviderConfigException e) {
    String message = String.valueOf(e.getMessage());
    String prefix = e.key() + ": ";
    return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
  }
}
