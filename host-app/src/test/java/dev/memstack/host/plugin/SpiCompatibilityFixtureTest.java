package dev.memstack.host.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.MemoryProviderFactory;
import dev.memstack.spi.ProviderContext;
import dev.memstack.tck.MemoryProviderCompatibilityKit;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.pf4j.PluginManager;
import org.pf4j.PluginState;

/**
 * A plugin zip compiled against SPI 0.4.0 and committed as it was built ({@code
 * compat/provider-notes-spi-0.4.0.zip}, see the README beside it), loaded by the host's PF4J plugin
 * manager and run through the whole compatibility kit: the proof that plugins built against an
 * older SPI keep loading and behaving as the SPI grows additively.
 */
@DisplayName("A plugin built against SPI 0.4.0, loaded by the host's plugin manager")
class SpiCompatibilityFixtureTest extends MemoryProviderCompatibilityKit {

  static final String FIXTURE = "/compat/provider-notes-spi-0.4.0.zip";
  static final String PLUGIN_ID = "memstack-notes";

  /** The host's default {@code memstack.plugins.system-version}. */
  static final String HOST_VERSION = "0.1.0";

  private static PluginManager manager;
  private static MemoryProviderFactory factory;

  @BeforeAll
  static void loadTheFixtureWithTheHostsPluginManager(@TempDir Path plugins) throws IOException {
    try (InputStream zip = SpiCompatibilityFixtureTest.class.getResourceAsStream(FIXTURE)) {
      assertThat(zip).as("test resource %s", FIXTURE).isNotNull();
      Files.copy(zip, plugins.resolve(Path.of(FIXTURE).getFileName().toString()));
    }
    manager = PluginConfiguration.pluginManager(plugins, HOST_VERSION);
    manager.loadPlugins();
    manager.startPlugins();

    assertThat(manager.getPlugin(PLUGIN_ID)).as("plugin %s loaded", PLUGIN_ID).isNotNull();
    assertThat(manager.getPlugin(PLUGIN_ID).getPluginState()).isEqualTo(PluginState.STARTED);
    List<MemoryProviderFactory> factories =
        manager.getExtensions(MemoryProviderFactory.class, PLUGIN_ID);
    assertThat(factories).as("factories of %s", PLUGIN_ID).hasSize(1);
    factory = factories.get(0);
    assertThat(factory.getClass().getClassLoader())
        .as("the factory comes from the plugin zip, not the host's class path")
        .isSameAs(manager.getPluginClassLoader(PLUGIN_ID));
    assertThat(factory.type()).isEqualTo("notes");
  }

  @AfterAll
  static void unload() {
    if (manager != null) {
      PluginCatalog.stopAndUnload(manager);
    }
  }

  @Override
  protected MemoryProvider createProvider(ProviderContext context) {
    return factory.create(context);
  }
}
