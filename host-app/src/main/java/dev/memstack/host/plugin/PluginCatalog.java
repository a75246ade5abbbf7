package dev.memstack.host.plugin;

import dev.memstack.host.provider.PluginClassLoader;
import dev.memstack.spi.MemoryProviderFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.pf4j.PluginManager;
import org.pf4j.PluginState;
import org.pf4j.PluginWrapper;
import org.pf4j.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PF4J side of the {@link ProviderRegistry}: loads, starts, stops and reloads plugins, finds
 * the provider types each started plugin offers (its {@link MemoryProviderFactory} extensions), and
 * describes the plugins and why one did not start. Not thread-safe on its own: the registry runs
 * plugin operations one at a time; the cached types are safe to read at any time.
 */
final class PluginCatalog {

  private static final Logger log = LoggerFactory.getLogger(PluginCatalog.class);

  /** A provider type offered by a started plugin. */
  record TypeOffer(
      String type, String pluginId, MemoryProviderFactory factory, ClassLoader classLoader) {}

  private final PluginManager plugins;
  private volatile Map<String, List<String>> typesByPlugin = Map.of();

  PluginCatalog(PluginManager plugins) {
    this.plugins = plugins;
  }

  // ---- lifecycle

  /** Loads and starts every plugin of the folder and logs how each one ended. */
  void loadAndStartAll() {
    plugins.loadPlugins();
    plugins.startPlugins();
    for (PluginWrapper plugin : plugins.getPlugins()) {
      PluginInfo info = info(plugin, List.of());
      if (plugin.getPluginState() == PluginState.STARTED) {
        log.info("Plugin {} {} started", info.id(), info.version());
      } else {
        log.warn(
            "Plugin {} {} is {}{}",
            info.id(),
            info.version(),
            info.state(),
            info.failure() == null ? "" : ": " + info.failure());
      }
    }
  }

  /** Stops the started plugins and unloads all. */
  void stopAndUnloadAll() {
    stopAndUnload(plugins);
  }

  /**
   * Stops the started plugins in reverse start order, then unloads all. ({@code
   * PluginManager.stopPlugins()} of PF4J 3.15 fails with a ConcurrentModificationException.)
   */
  static void stopAndUnload(PluginManager plugins) {
    List<PluginWrapper> started = new ArrayList<>(plugins.getStartedPlugins());
    Collections.reverse(started);
    for (PluginWrapper plugin : started) {
      try {
        plugins.stopPlugin(plugin.getPluginId());
      } catch (RuntimeException e) {
        log.warn("Plugin {} failed to stop: {}", plugin.getPluginId(), e.toString());
      }
    }
    plugins.unloadPlugins();
  }

  /** Stops one plugin (its instances must be closed already). */
  void stop(String pluginId) {
    PluginState state = plugins.stopPlugin(pluginId);
    refreshTypes();
    log.info("Plugin {} stopped ({})", pluginId, lower(state));
  }

  /**
   * Starts one plugin.
   *
   * @throws PluginOperationException when it does not start
   */
  void start(String pluginId) {
    PluginState state = plugins.startPlugin(pluginId);
    if (state != PluginState.STARTED) {
      refreshTypes();
      throw new PluginOperationException(
          "plugin " + pluginId + " did not start: " + lower(state) + failureOf(pluginId),
          plugins.getPlugin(pluginId).getFailedException());
    }
  }

  /**
   * Stops, unloads, loads (from its zip again when the zip is newer) and starts one plugin (its
   * instances must be closed already).
   *
   * @param path where the plugin was loaded from
   * @return the id of the plugin as loaded again
   * @throws PluginOperationException when the plugin does not come back
   */
  String reload(String pluginId, Path path) {
    plugins.stopPlugin(pluginId);
    if (!plugins.unloadPlugin(pluginId)) {
      refreshTypes();
      throw new PluginOperationException(
          "plugin " + pluginId + " could not be unloaded" + failureOf(pluginId), null);
    }
    String loadedId;
    try {
      loadedId = plugins.loadPlugin(freshPath(path));
    } catch (RuntimeException e) {
      refreshTypes();
      throw new PluginOperationException(
          "plugin " + pluginId + " could not be loaded again from " + path + ": " + e.getMessage(),
          e);
    }
    if (loadedId == null) {
      refreshTypes();
      throw new PluginOperationException(
          "plugin " + pluginId + " could not be loaded again from " + path, null);
    }
    PluginState state = plugins.startPlugin(loadedId);
    if (state != PluginState.STARTED) {
      refreshTypes();
      throw new PluginOperationException(
          "plugin "
              + loadedId
              + " did not start after reload: "
              + lower(state)
              + failureOf(loadedId),
          plugins.getPlugin(loadedId).getFailedException());
    }
    return loadedId;
  }

  /** The plugin's folder, expanded again from its zip when the zip is newer. */
  private static Path freshPath(Path path) {
    Path zip = path.resolveSibling(path.getFileName() + ".zip");
    if (Files.isDirectory(path) && Files.isRegularFile(zip)) {
      try {
        return FileUtils.expandIfZip(zip);
      } catch (IOException e) {
        log.warn("Cannot expand {} again, loading {} as it is: {}", zip, path, e.toString());
      }
    }
    return path;
  }

  // ---- provider types

  /**
   * The types of every started plugin, also cached for the views.
   *
   * @param atStart whether a type offered twice is a start-up error (otherwise the first wins)
   */
  Map<String, TypeOffer> offers(boolean atStart) {
    Map<String, TypeOffer> offers = new TreeMap<>();
    Map<String, List<String>> byPlugin = new TreeMap<>();
    for (PluginWrapper plugin : plugins.getStartedPlugins()) {
      String pluginId = plugin.getPluginId();
      ClassLoader loader = plugins.getPluginClassLoader(pluginId);
      List<MemoryProviderFactory> factories =
          PluginClassLoader.call(
              loader, () -> plugins.getExtensions(MemoryProviderFactory.class, pluginId));
      if (factories.isEmpty() && !plugins.getExtensionClassNames(pluginId).isEmpty()) {
        log.warn(
            "Plugin {} declares extensions {} but none is a {} as the host loads it;"
                + " does the plugin bundle its own copy of memory-spi?",
            pluginId,
            plugins.getExtensionClassNames(pluginId),
            MemoryProviderFactory.class.getName());
      }
      List<String> types = new ArrayList<>();
      for (MemoryProviderFactory factory : factories) {
        String type = PluginClassLoader.call(loader, factory::type);
        TypeOffer previous = offers.get(type);
        if (previous != null) {
          String problem =
              "provider type '"
                  + type
                  + "' is offered by both plugin "
                  + previous.pluginId()
                  + " and plugin "
                  + pluginId
                  + "; remove one of them";
          if (atStart) {
            throw new ProviderStartupException("memstack.plugins.dir", problem);
          }
          log.warn(problem);
          continue;
        }
        offers.put(type, new TypeOffer(type, pluginId, factory, loader));
        types.add(type);
      }
      types.sort(null);
      byPlugin.put(pluginId, List.copyOf(types));
    }
    typesByPlugin = Map.copyOf(byPlugin);
    return offers;
  }

  private void refreshTypes() {
    offers(false);
  }

  /** The provider types of each started plugin, as last found. */
  Map<String, List<String>> typesByPlugin() {
    return typesByPlugin;
  }

  // ---- descriptions

  /**
   * The loaded plugin with this id.
   *
   * @throws PluginNotFoundException when there is none
   */
  PluginWrapper require(String pluginId) {
    PluginWrapper plugin = pluginId == null ? null : plugins.getPlugin(pluginId);
    if (plugin == null) {
      throw new PluginNotFoundException(pluginId);
    }
    return plugin;
  }

  /** Every loaded plugin, sorted by id. */
  List<PluginInfo> plugins() {
    Map<String, List<String>> types = typesByPlugin;
    return plugins.getPlugins().stream()
        .map(p -> info(p, types.getOrDefault(p.getPluginId(), List.of())))
        .sorted(Comparator.comparing(PluginInfo::id))
        .toList();
  }

  /** The loaded plugin with this id. */
  PluginInfo plugin(String pluginId) {
    PluginWrapper plugin = require(pluginId);
    return info(plugin, typesByPlugin.getOrDefault(plugin.getPluginId(), List.of()));
  }

  /** Where plugins are loaded from, for messages. */
  List<Path> roots() {
    return plugins.getPluginsRoots();
  }

  /** {@code "; plugins not started: ..."} naming each and why, or {@code ""} when all started. */
  String notStartedPlugins() {
    List<String> notStarted = new ArrayList<>();
    for (PluginWrapper plugin : plugins.getPlugins()) {
      if (plugin.getPluginState() != PluginState.STARTED) {
        notStarted.add(
            plugin.getPluginId()
                + " is "
                + lower(plugin.getPluginState())
                + failureOf(plugin.getPluginId()));
      }
    }
    return notStarted.isEmpty() ? "" : "; plugins not started: " + String.join(", ", notStarted);
  }

  private String failureOf(String pluginId) {
    PluginWrapper plugin = plugins.getPlugin(pluginId);
    if (plugin == null || plugin.getFailedException() == null) {
      return "";
    }
    Throwable failure = plugin.getFailedException();
    String requires = plugin.getDescriptor().getRequires();
    String reason = failure.getMessage() == null ? failure.toString() : failure.getMessage();
    if ("Plugin validation failed".equals(reason) && requires != null && !requires.isBlank()) {
      reason =
          "it requires host version "
              + requires
              + " and this host is "
              + plugins.getSystemVersion();
    }
    return " (" + reason + ")";
  }

  private PluginInfo info(PluginWrapper plugin, List<String> types) {
    String failure = failureOf(plugin.getPluginId());
    return new PluginInfo(
        plugin.getPluginId(),
        plugin.getDescriptor().getVersion(),
        lower(plugin.getPluginState()),
        plugin.getDescriptor().getPluginDescription(),
        plugin.getDescriptor().getRequires(),
        plugin.getPluginState() == PluginState.STARTED ? types : List.of(),
        failure.isEmpty() ? null : failure.substring(2, failure.length() - 1));
  }

  private static String lower(PluginState state) {
    return state == null ? "unknown" : state.name().toLowerCase(Locale.ROOT);
  }
}
