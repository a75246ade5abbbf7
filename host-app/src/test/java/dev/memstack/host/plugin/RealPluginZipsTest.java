package dev.memstack.host.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.MemoryProviderFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pf4j.PluginManager;
import org.pf4j.PluginState;
import org.pf4j.PluginWrapper;

/** Loads the three real provider plugin zips from a temporary folder with a real PF4J manager. */
class RealPluginZipsTest {

  @TempDir Path temp;

  private PluginManager manager;

  @AfterEach
  void unload() {
    if (manager != null) {
      PluginCatalog.stopAndUnload(manager);
    }
  }

  /** Loads and starts the three real plugin zips in a plugin manager of host {@code version}. */
  private void startTheRealPluginsOnAHostOf(String version) {
    manager =
        PluginConfiguration.pluginManager(PluginZips.copyAllTo(temp.resolve("plugins")), version);
    manager.loadPlugins();
    manager.startPlugins();
  }

  @Test
  void theThreePluginsStartAndOfferTheTypesBuiltinVectorAndMem0() {
    startTheRealPluginsOnAHostOf("0.1.0");

    assertThat(manager.getPlugins())
        .extracting(PluginWrapper::getPluginId)
        .containsExactlyInAnyOrder("memstack-builtin", "memstack-vector", "memstack-mem0");
    assertThat(manager.getPlugins())
        .allSatisfy(p -> assertThat(p.getPluginState()).isEqualTo(PluginState.STARTED));

    TreeSet<String> types = new TreeSet<>();
    for (PluginWrapper plugin : manager.getStartedPlugins()) {
      List<MemoryProviderFactory> factories =
          manager.getExtensions(MemoryProviderFactory.class, plugin.getPluginId());
      assertThat(factories).as("factories of %s", plugin.getPluginId()).hasSize(1);
      assertThat(factories.get(0).getClass().getClassLoader())
          .as("the factory comes from the plugin, not the host")
          .isSameAs(manager.getPluginClassLoader(plugin.getPluginId()));
      types.add(factories.get(0).type());
    }
    assertThat(types).containsExactly("builtin", "mem0", "vector");
  }

  @Test
  void aHostOlderThanThePluginsRequireDisablesThem() {
    startTheRealPluginsOnAHostOf("0.0.9");

    assertThat(manager.getPlugins()).hasSize(3);
    assertThat(manager.getPlugins())
        .allSatisfy(p -> assertThat(p.getPluginState()).isEqualTo(PluginState.DISABLED));
    assertThat(manager.getExtensions(MemoryProviderFactory.class)).isEmpty();
  }
}
