package dev.memstack.host.stack;

import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.provider.Breakers;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.RequestCalls;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.outbox.TurnOutbox;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The stack's beans: {@link ProviderCalls}, the request path's {@link RequestCalls} (its pool and
 * breakers set by {@code memstack.stack.context.*} and {@code memstack.stack.breaker.*}), {@link
 * SystemPromptCache} and {@link MemoryStack}, configured by {@link StackProperties}. The {@link
 * TurnOutbox} comes from the outbox module ({@code dev.memstack.outbox}), the {@link
 * ConversationLog} from {@code dev.memstack.host.conversation} (a context without one, such as a
 * test slice of the stack and the outbox, records no turns: {@link ConversationLog#none()}), {@link
 * StackMembers} from the plugin registry.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(StackProperties.class)
public class StackConfiguration {

  @Bean
  ProviderCalls providerCalls(ObjectProvider<MeterRegistry> registry) {
    return new ProviderCalls(registry.getIfAvailable(SimpleMeterRegistry::new));
  }

  @Bean
  StoredOwnerKeys storedOwnerKeys(ObjectProvider<ConversationLog> conversations) {
    return new StoredOwnerKeys(conversations.getIfAvailable(ConversationLog::none));
  }

  @Bean
  SystemPromptCache systemPromptCache() {
    return new SystemPromptCache();
  }

  /**
   * Takes {@link StackMembers} so that the container closes the call pool before the plugin
   * registry (the members) closes the providers.
   */
  @Bean(destroyMethod = "close")
  RequestCalls requestCalls(ProviderCalls calls, StackMembers members, StackProperties properties) {
    return newRequestCalls(calls, members, properties);
  }

  /** The request path's calls as configured by {@code properties}. */
  static RequestCalls newRequestCalls(
      ProviderCalls calls, StackMembers members, StackProperties properties) {
    return new RequestCalls(
        calls,
        members,
        new Breakers(properties.breaker().failureThreshold(), properties.breaker().openDuration()),
        properties.context().maxLateCallsPerProvider(),
        properties.context().callThreads());
  }

  @Bean
  MemoryStack memoryStack(
      StackMembers members,
      RequestCalls calls,
      SystemPromptCache cache,
      TurnOutbox outbox,
      ObjectProvider<ConversationLog> conversations,
      StackProperties properties) {
    return new MemoryStack(
        members,
        calls,
        cache,
        outbox,
        conversations.getIfAvailable(ConversationLog::none),
        properties,
        Clock.systemUTC());
  }
}
