package dev.memstack.host.plugin;

import dev.memstack.host.MemstackApplication;
import dev.memstack.host.coordination.InProcessCoordination;
import dev.memstack.host.coordination.ProviderCoordination;
import dev.memstack.host.coordination.SystemPromptInvalidation;
import dev.memstack.host.stack.SystemPromptCache;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import java.nio.file.Path;
import java.time.Clock;
import org.pf4j.DefaultPluginManager;
import org.pf4j.PluginManager;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The PF4J plugin manager over {@code memstack.plugins.dir}, with the host version as PF4J system
 * version so that each plugin's {@code plugin.requires} is checked, and the {@link
 * ProviderRegistry} built from it. Defines a UTC {@link Clock} when the host has none.
 */
@Configuration(proxyBeanMethods = false)
public class PluginConfiguration {

  @Bean
  @ConditionalOnMissingBean
  Clock clock() {
    return Clock.systemUTC();
  }

  @Bean
  PluginManager memstackPluginManager(PluginHostProperties properties) {
    PluginZipsEarly.awaitExpansion(); // PF4J must not see a folder half expanded
    return pluginManager(
        PluginFolder.resolve(
            properties.plugins().dir(), PluginFolder.jarOf(MemstackApplication.class)),
        properties.plugins().systemVersion());
  }

  @Bean(initMethod = "start", destroyMethod = "stop")
  ProviderRegistry providerRegistry(
      PluginManager memstackPluginManager,
      PluginHostProperties properties,
      ObjectProvider<Clock> clock,
      ObjectProvider<Embedder> embedders,
      ObjectProvider<LanguageModel> languageModels,
      SystemPromptCache systemPromptCache,
      ObjectProvider<SystemPromptInvalidation> promptInvalidation,
      ObjectProvider<ProviderCoordination> coordination) {
    Clock hostClock = clock.getIfUnique(Clock::systemUTC);
    return new ProviderRegistry(
        memstackPluginManager,
        properties,
        systemPromptCache,
        ProviderPorts.of(
            hostClock,
            embedders,
            languageModels,
            promptInvalidation.getIfAvailable(
                () -> SystemPromptInvalidation.local(systemPromptCache::invalidate)),
            coordination.getIfAvailable(() -> new InProcessCoordination(hostClock))));
  }

  /**
   * A PF4J manager over {@code folder} that checks {@code plugin.requires} against {@code
   * hostVersion}.
   */
  public static PluginManager pluginManager(Path folder, String hostVersion) {
    DefaultPluginManager manager = new DefaultPluginManager(folder);
    manager.setSystemVersion(hostVersion);
    return manager;
  }
}
