package dev.memstack.host.plugin;

import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.stack.SystemPromptCache;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.MemoryProviderFactory;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.pf4j.PluginManager;
import org.pf4j.PluginState;
import org.pf4j.PluginWrapper;
import org.pf4j.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The provider instances of the host, built from PF4J plugins and {@code memstack.providers.*}:
 * discovery makes a provider type available (a started plugin's {@link MemoryProviderFactory}
 * extension), configuration activates instances of it. At start every enabled instance is created
 * with its own folder {@code <memstack.data-dir>/<id>}; an unknown type, a missing plugin or an
 * invalid setting throws {@link ProviderStartupException} naming the key, which stops the host. A
 * disabled instance is not checked.
 *
 * <p>Implements the stack's live {@link StackMembers} view. {@link #stopPlugin}, {@link
 * #startPlugin} and {@link #reloadPlugin} (stop, unload, load, start) take a plugin's instances out
 * of the view first, then close each one once its running calls have finished or {@code
 * memstack.plugins.close-grace-period} has passed, and after a start create them anew: the stack
 * sees new members with the same ids. Plugin operations run one at a time; reading the view never
 * blocks.
 */
public final class ProviderRegistry implements StackMembers {

  private static final Logger log = LoggerFactory.getLogger(ProviderRegistry.class);

  /** Instance ids become folder names and metric tags. */
  private static final Pattern INSTANCE_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  private static final Comparator<StackMember> STACK_ORDER =
      Comparator.comparingInt(StackMember::order).thenComparing(StackMember::id);

  /** A provider type offered by a started plugin. */
  private record TypeOffer(
      String type, String pluginId, MemoryProviderFactory factory, ClassLoader classLoader) {}

  /** A configured instance with its type resolved. */
  private record Configured(
      String id, String type, int order, boolean enabled, Map<String, String> config) {}

  private final PluginManager plugins;
  private final Path dataDir;
  private final Duration closeGrace;
  private final List<Configured> configured;
  private final Clock clock;
  private final Embedder embedder;
  private final LanguageModel languageModel;
  private final SystemPromptCache systemPromptCache;
  private final Object lifecycle = new Object();

  private volatile List<StackMember> members = List.of();
  private volatile Map<String, List<String>> typesByPlugin = Map.of();

  public ProviderRegistry(
      PluginManager plugins,
      PluginHostProperties properties,
      Clock clock,
      ObjectProvider<Embedder> embedders,
      ObjectProvider<LanguageModel> languageModels,
      SystemPromptCache systemPromptCache) {
    this.plugins = plugins;
    this.dataDir = properties.dataDir().toAbsolutePath().normalize();
    this.closeGrace = properties.plugins().closeGracePeriod();
    this.clock = clock;
    this.embedder = LazyModelPorts.embedder(embedders);
    this.languageModel = LazyModelPorts.languageModel(languageModels);
    this.systemPromptCache = systemPromptCache;
    this.configured = configured(properties.providers());
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

  /**
   * Loads and starts the plugins, then creates every enabled instance.
   *
   * @throws ProviderStartupException naming the key at fault; nothing stays running then
   */
  public void start() {
    synchronized (lifecycle) {
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
      List<StackMember> created = new ArrayList<>();
      try {
        Map<String, TypeOffer> offers = offers(true);
        for (Configured instance : configured) {
          if (!instance.enabled()) {
            log.info("Provider {} (type {}) is disabled", instance.id(), instance.type());
            continue;
          }
          created.add(create(instance, offers));
        }
      } catch (RuntimeException | LinkageError e) {
        created.forEach(m -> tracked(m).retireAndClose(Duration.ZERO));
        stopAndUnload(plugins);
        throw e;
      }
      publish(created);
    }
  }

  /** Closes every instance and stops and unloads the plugins. */
  public void stop() {
    synchronized (lifecycle) {
      List<StackMember> leaving = members;
      publish(List.of());
      leaving.forEach(m -> tracked(m).retireAndClose(closeGrace));
      stopAndUnload(plugins);
    }
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

  // ---- StackMembers

  @Override
  public List<StackMember> enabled() {
    return members;
  }

  @Override
  public Optional<StackMember> find(String id) {
    for (StackMember member : members) {
      if (member.id().equals(id)) {
        return Optional.of(member);
      }
    }
    return Optional.empty();
  }

  @Override
  public List<String> disabled() {
    List<StackMember> running = members;
    List<String> result = new ArrayList<>();
    for (Configured instance : configured) {
      if (running.stream().noneMatch(m -> m.id().equals(instance.id()))) {
        result.add(instance.id());
      }
    }
    return result;
  }

  // ---- views

  /** Every configured instance, in stack order, with its state. */
  public List<ProviderInstanceInfo> instances() {
    List<StackMember> running = members;
    Map<String, List<String>> types = typesByPlugin;
    List<ProviderInstanceInfo> result = new ArrayList<>();
    for (Configured instance : configured) {
      Optional<StackMember> member =
          running.stream().filter(m -> m.id().equals(instance.id())).findFirst();
      String pluginId =
          member
              .map(StackMember::pluginId)
              .orElseGet(
                  () ->
                      types.entrySet().stream()
                          .filter(e -> e.getValue().contains(instance.type()))
                          .map(Map.Entry::getKey)
                          .findFirst()
                          .orElse(null));
      String state =
          member.isPresent()
              ? ProviderInstanceInfo.RUNNING
              : instance.enabled() ? ProviderInstanceInfo.STOPPED : ProviderInstanceInfo.DISABLED;
      result.add(
          new ProviderInstanceInfo(
              instance.id(),
              instance.type(),
              pluginId,
              instance.order(),
              instance.enabled(),
              state));
    }
    return result;
  }

  /** Every loaded plugin, sorted by id. */
  public List<PluginInfo> plugins() {
    Map<String, List<String>> types = typesByPlugin;
    return plugins.getPlugins().stream()
        .map(p -> info(p, types.getOrDefault(p.getPluginId(), List.of())))
        .sorted(Comparator.comparing(PluginInfo::id))
        .toList();
  }

  /** The loaded plugin with this id. */
  public PluginInfo plugin(String pluginId) {
    PluginWrapper plugin = require(pluginId);
    return info(plugin, typesByPlugin.getOrDefault(plugin.getPluginId(), List.of()));
  }

  // ---- plugin operations

  /**
   * Takes the plugin's instances out of the stack, closes them and stops the plugin.
   *
   * @throws PluginNotFoundException when no plugin has this id
   */
  public PluginInfo stopPlugin(String pluginId) {
    synchronized (lifecycle) {
      require(pluginId);
      retire(pluginId);
      PluginState state = plugins.stopPlugin(pluginId);
      refreshTypes();
      log.info("Plugin {} stopped ({})", pluginId, lower(state));
      return plugin(pluginId);
    }
  }

  /**
   * Starts the plugin and creates the enabled instances of the types it offers.
   *
   * @throws PluginNotFoundException when no plugin has this id
   * @throws PluginOperationException when the plugin or one of its instances does not start
   */
  public PluginInfo startPlugin(String pluginId) {
    synchronized (lifecycle) {
      require(pluginId);
      PluginState state = plugins.startPlugin(pluginId);
      if (state != PluginState.STARTED) {
        refreshTypes();
        throw new PluginOperationException(
            "plugin " + pluginId + " did not start: " + lower(state) + failureOf(pluginId),
            plugins.getPlugin(pluginId).getFailedException());
      }
      activate(pluginId);
      return plugin(pluginId);
    }
  }

  /**
   * Stops, unloads, loads (from its zip again when the zip is newer) and starts the plugin, closing
   * its instances first and creating them anew at the end.
   *
   * @throws PluginNotFoundException when no plugin has this id
   * @throws PluginOperationException when the plugin or one of its instances does not come back
   */
  public PluginInfo reloadPlugin(String pluginId) {
    synchronized (lifecycle) {
      Path path = require(pluginId).getPluginPath();
      retire(pluginId);
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
            "plugin "
                + pluginId
                + " could not be loaded again from "
                + path
                + ": "
                + e.getMessage(),
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
      activate(loadedId);
      log.info("Plugin {} reloaded from {}", loadedId, path);
      return plugin(loadedId);
    }
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

  // ---- internals

  private PluginWrapper require(String pluginId) {
    PluginWrapper plugin = pluginId == null ? null : plugins.getPlugin(pluginId);
    if (plugin == null) {
      throw new PluginNotFoundException(pluginId);
    }
    return plugin;
  }

  /** Takes the plugin's members out of the view, then closes them. */
  private void retire(String pluginId) {
    List<StackMember> leaving =
        members.stream().filter(m -> m.pluginId().equals(pluginId)).toList();
    if (leaving.isEmpty()) {
      return;
    }
    publish(members.stream().filter(m -> !m.pluginId().equals(pluginId)).toList());
    for (StackMember member : leaving) {
      boolean idle = tracked(member).retireAndClose(closeGrace);
      log.info(
          "Provider {} closed{}",
          member.id(),
          idle ? "" : " (calls still running after " + closeGrace.toMillis() + " ms)");
    }
  }

  /** Creates the enabled, not running instances whose type the plugin offers. */
  private void activate(String pluginId) {
    Map<String, TypeOffer> offers;
    try {
      offers = offers(false);
    } catch (ProviderStartupException e) {
      throw new PluginOperationException(e.getMessage(), e);
    }
    List<StackMember> created = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    RuntimeException first = null;
    for (Configured instance : configured) {
      TypeOffer offer = offers.get(instance.type());
      if (!instance.enabled()
          || offer == null
          || !offer.pluginId().equals(pluginId)
          || find(instance.id()).isPresent()) {
        continue;
      }
      try {
        created.add(create(instance, offers));
      } catch (ProviderStartupException e) {
        failures.add(e.getMessage());
        first = first == null ? e : first;
      }
    }
    List<StackMember> next = new ArrayList<>(members);
    next.addAll(created);
    publish(next);
    if (!failures.isEmpty()) {
      throw new PluginOperationException(
          "plugin " + pluginId + " started, but: " + String.join("; ", failures), first);
    }
  }

  private StackMember create(Configured instance, Map<String, TypeOffer> offers) {
    String typeKey = "memstack.providers." + instance.id() + ".type";
    TypeOffer offer = offers.get(instance.type());
    if (offer == null) {
      throw new ProviderStartupException(
          typeKey,
          "no started plugin offers provider type '"
              + instance.type()
              + "' (available types: "
              + (offers.isEmpty() ? "none" : String.join(", ", new TreeMap<>(offers).keySet()))
              + notStartedPlugins()
              + "; plugin folder: "
              + plugins.getPluginsRoots()
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
            clock,
            embedder,
            languageModel,
            systemPromptCache);
    MemoryProvider provider;
    try {
      provider = withClassLoader(offer.classLoader(), () -> offer.factory().create(context));
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
    String reportedId = withClassLoader(offer.classLoader(), provider::id);
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

  /**
   * The types of every started plugin, also cached for the views.
   *
   * @param atStart whether a type offered twice is a start-up error (otherwise the first wins)
   */
  private Map<String, TypeOffer> offers(boolean atStart) {
    Map<String, TypeOffer> offers = new TreeMap<>();
    Map<String, List<String>> byPlugin = new TreeMap<>();
    for (PluginWrapper plugin : plugins.getStartedPlugins()) {
      String pluginId = plugin.getPluginId();
      ClassLoader loader = plugins.getPluginClassLoader(pluginId);
      List<MemoryProviderFactory> factories =
          withClassLoader(
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
        String type = withClassLoader(loader, factory::type);
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

  private String notStartedPlugins() {
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

  private void publish(List<StackMember> next) {
    List<StackMember> sorted = new ArrayList<>(next);
    sorted.sort(STACK_ORDER);
    members = List.copyOf(sorted);
    systemPromptCache.invalidate(null);
  }

  private static TrackedMemoryProvider tracked(StackMember member) {
    return (TrackedMemoryProvider) member.provider();
  }

  private static String lower(PluginState state) {
    return state == null ? "unknown" : state.name().toLowerCase(Locale.ROOT);
  }

  private static <T> T withClassLoader(ClassLoader loader, Supplier<T> body) {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      return body.get();
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  @Override
  public String toString() {
    Map<String, String> view = new LinkedHashMap<>();
    members.forEach(m -> view.put(m.id(), m.type() + "@" + m.pluginId()));
    return "ProviderRegistry" + view;
  }
}
