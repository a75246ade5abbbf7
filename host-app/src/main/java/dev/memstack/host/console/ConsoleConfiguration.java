package dev.memstack.host.console;

import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.coordination.ProviderCoordination;
import dev.memstack.host.coordination.SharedCoordination;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.shared.SharedStore;
import dev.memstack.host.stack.MemoryStack;
import dev.memstack.outbox.TurnOutbox;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/**
 * Binds {@code memstack.console.*} and makes the statistics: {@link AgentStats}, the samples' store
 * (in memory, or in the shared database in shared mode) and the {@link StatsSampler}, started here
 * and stopped with the context.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ConsoleProperties.class)
public class ConsoleConfiguration {

  @Bean
  AgentStats agentStats(
      CapabilityTools providers,
      TurnOutbox outbox,
      ObjectProvider<ConversationLog> conversations,
      MemoryStack stack,
      AccessPolicy access,
      JsonMapper json) {
    return new AgentStats(
        providers,
        outbox,
        conversations.getIfAvailable(ConversationLog::none),
        stack.activity(),
        access,
        json);
  }

  @Bean
  StatsSamples statsSamples(ObjectProvider<SharedStore> shared) {
    SharedStore store = shared.getIfAvailable();
    return store == null ? new MemoryStatsSamples() : new PostgresStatsSamples(store);
  }

  @Bean(destroyMethod = "close")
  StatsSampler statsSampler(
      AgentStats stats,
      StatsSamples samples,
      ConsoleProperties properties,
      ProviderCoordination coordination,
      ObjectProvider<Clock> clock) {
    String host = coordination instanceof SharedCoordination shared ? shared.hostId() : "this-host";
    StatsSampler sampler =
        new StatsSampler(
            stats,
            new StatsHistory(samples, properties, clock.getIfUnique(Clock::systemUTC), host));
    sampler.start();
    return sampler;
  }
}
