package dev.memstack.host.plugin;

import dev.memstack.host.plugin.PluginCatalog.TypeOffer;
import dev.memstack.host.plugin.ProviderInstances.Configured;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.stack.SystemPromptCache;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.MemoryProviderFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.pf4j.PluginManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider instances of the host, built from PF4J plugins and {@code memstack.providers.*}:
 * discovery makes a provider type available (a started plugin's {@link MemoryProviderFactory}
 * extension, {@link PluginCatalog}), configuration activates instances of it ({@link
 * ProviderInstances}). At start every enabled instance is created with its own folder {@code
 * <memstack.data-dir>/<id>}; an unknown type, a missing plugin or an invalid setting throws {@link
 * ProviderStartupException} naming the key, which stops the host. A disabled instance is not
 * checked.
 *
 * <p>Implements the stack's live {@link StackMembers} view ({@link MemberView}). {@link
 * #stopPlugin}, {@link #startPlugin} and {@link #reloadPlugin} (stop, unload, load, start) take a
 * plugin's instances out of the view first, then close each one once its running calls have
 * finished or {@code memstack.plugins.close-grace-period} has passed, and after a start create them
 * anew: the stack sees new members with the same ids. {@link #stop} does the same for every
 * instance. Plugin operations run one at a time; reading the view never blocks. Listeners ({@link
 * #onChange}) run after each change of the view, inside the operation.
 */
public final class ProviderRegistry implements StackMembers {

  private static final Logger log = LoggerFactory.getLogger(ProviderRegistry.class);

  private final PluginCatalog catalog;
  private final Embedder embedder;
  private final ProviderInstances instances;
  private final MemberView view;
  private final Duration closeGrace;
  private final Object lifecycle = new Object();

  /**
   * A registry whose instances get {@code ports} ({@link ProviderPorts#local} for one host alone).
   */
  public ProviderRegistry(
      PluginManager plugins,
      PluginHostProperties properties,
      SystemPromptCache systemPromptCache,
      ProviderPorts ports) {
    this.catalog = new PluginCatalog(plugins);
    this.closeGrace = properties.plugins().closeGracePeriod();
    this.view = new MemberView(systemPromptCache);
    this.embedder = ports.embedder();
    this.instances =
        new ProviderInstances(
            properties.providers(),
            catalog,
            properties.dataDir().toAbsolutePath().normalize(),
            ports);
  }

  /** The embedder handed to the providers (it keeps the query vectors they computed). */
  @Override
  public Optional<Embedder> queryEmbedder() {
    return Optional.of(embedder);
  }

  /**
   * Loads and starts the plugins, then creates every enabled instance.
   *
   * @throws ProviderStartupException naming the key at fault; nothing stays running then
   */
  public void start() {
    synchronized (lifecycle) {
      catalog.loadAndStartAll();
      List<StackMember> created = new ArrayList<>();
      try {
        Map<String, TypeOffer> offers = catalog.offers(true);
        for (Configured instance : instances.configured()) {
          if (!instance.enabled()) {
            log.info("Provider {} (type {}) is disabled", instance.id(), instance.type());
            continue;
          }
          created.add(instances.create(instance, offers));
        }
      } catch (RuntimeException | LinkageError e) {
        created.forEach(m -> tracked(m).retireAndClose(Duration.ZERO));
        catalog.stopAndUnloadAll();
        throw e;
      }
      view.publish(created);
    }
  }

  /** Closes every instance (each after its running calls, within the grace), then the plugins. */
  public void stop() {
    synchronized (lifecycle) {
      view.takeOutAll().forEach(m -> tracked(m).retireAndClose(closeGrace));
      catalog.stopAndUnloadAll();
    }
  }

  // ---- StackMembers

  @Override
  public List<StackMember> enabled() {
    return view.enabled();
  }

  @Override
  public Optional<StackMember> find(String id) {
    return view.find(id);
  }

  @Override
  public List<String> disabled() {
    return view.disabled(instances.configured());
  }

  @Override
  public void onChange(Runnable listener) {
    view.onChange(listener);
  }

  // ---- views

  /** Every configured instance, in stack order, with its state. */
  public List<ProviderInstanceInfo> instances() {
    return view.instances(instances.configured(), catalog.typesByPlugin());
  }

  /** Every loaded plugin, sorted by id. */
  public List<PluginInfo> plugins() {
    return catalog.plugins();
  }

  /** The loaded plugin with this id. */
  public PluginInfo plugin(String pluginId) {
    return catalog.plugin(pluginId);
  }

  // ---- plugin operations

  /**
   * Takes the plugin's instances out of the stack, closes them and stops the plugin.
   *
   * @throws PluginNotFoundException when no plugin has this id
   */
  public PluginInfo stopPlugin(String pluginId) {
    synchronized (lifecycle) {
      catalog.require(pluginId);
      retire(pluginId);
      catalog.stop(pluginId);
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
      catalog.require(pluginId);
      catalog.start(pluginId);
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
      Path path = catalog.require(pluginId).getPluginPath();
      retire(pluginId);
      String loadedId = catalog.reload(pluginId, path);
      activate(loadedId);
      log.info("Plugin {} reloaded from {}", loadedId, path);
      return plugin(loadedId);
    }
  }

  /** Takes the plugin's members out of the view, then closes them. */
  private void retire(String pluginId) {
    for (StackMember member : view.takeOut(pluginId)) {
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
      offers = catalog.offers(false);
    } catch (ProviderStartupException e) {
      throw new PluginOperationException(e.getMessage(), e);
    }
    List<StackMember> created = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    RuntimeException first = null;
    for (Configured instance : instances.configured()) {
      TypeOffer offer = offers.get(instance.type());
      if (!instance.enabled()
          || offer == null
          || !offer.pluginId().equals(pluginId)
          || find(instance.id()).isPresent()) {
        continue;
      }
      try {
        created.add(instances.create(instance, offers));
      } catch (ProviderStartupException e) {
        failures.add(e.getMessage());
        first = first == null ? e : first;
      }
    }
    view.add(created);
    if (!failures.isEmpty()) {
      throw new PluginOperationException(
          "plugin " + pluginId + " started, but: " + String.join("; ", failures), first);
    }
  }

  private static TrackedMemoryProvider tracked(StackMember member) {
    return (TrackedMemoryProvider) member.provider();
  }

  @Override
  public String toString() {
    Map<String, String> view = new LinkedHashMap<>();
    enabled().forEach(m -> view.put(m.id(), m.type() + "@" + m.pluginId()));
    return "ProviderRegistry" + view;
  }
}
