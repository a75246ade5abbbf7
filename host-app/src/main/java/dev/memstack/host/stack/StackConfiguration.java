package dev.memstack.host.stack;

import dev.memstack.host.outbox.TurnOutbox;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMembers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The stack's beans: {@link ProviderCalls}, {@link SystemPromptCache}, and {@link MemoryStack},
 * configured by {@link StackProperties}. The {@link TurnOutbox} comes from {@code
 * dev.memstack.host.outbox}, {@link StackMembers} from the plugin registry.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(StackProperties.class)
public class StackConfiguration {

  @Bean
  ProviderCalls providerCalls(ObjectProvider<MeterRegistry> registry) {
    return new ProviderCalls(registry.getIfAvailable(SimpleMeterRegistry::new));
  }

  @Bean
  SystemPromptCache systemPromptCache() {
    return new SystemPromptCache();
  }

  @Bean(destroyMethod = "close")
  MemoryStack memoryStack(
      StackMembers members,
      ProviderCalls calls,
      SystemPromptCache cache,
      TurnOutbox outbox,
      StackProperties properties) {
    return new MemoryStack(members, calls, cache, outbox, properties);
  }
}
