package dev.memstack.boot.autoconfigure;

import dev.memstack.client.MemstackClient;
import dev.memstack.springai.MemstackAdvisor;
import dev.memstack.springai.MemstackMetrics;
import dev.memstack.springai.MicrometerMemstackMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With Spring AI on the class path: a {@link MemstackAdvisor} over the {@link MemstackClient} and
 * {@code memstack.client.advisor.*}, counting its calls in the application's {@link MeterRegistry}
 * when there is one; with {@code memstack.client.advisor.auto-register=true}, a {@link
 * ChatClientBuilderCustomizer} that adds it to the auto-configured {@code ChatClient.Builder}.
 */
@AutoConfiguration(after = MemstackClientAutoConfiguration.class)
@ConditionalOnClass({ChatClient.class, MemstackAdvisor.class})
@ConditionalOnBean(MemstackClient.class)
public class MemstackAdvisorAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  MemstackAdvisor memstackAdvisor(
      MemstackClient client,
      MemstackClientProperties properties,
      ObjectProvider<MemstackMetrics> metrics) {
    MemstackClientProperties.Advisor settings = properties.advisor();
    MemstackAdvisor.Builder builder =
        MemstackAdvisor.builder(client)
            .metrics(metrics.getIfUnique(() -> MemstackMetrics.NOOP))
            .defaultConversationId(settings.defaultConversationId())
            .triggerSource(settings.triggerSource())
            .handInTurns(
                settings.handInTurns() != null
                    ? settings.handInTurns()
                    : !properties.chatMemory().enabled());
    if (settings.order() != null) {
      builder.order(settings.order());
    }
    try {
      builder.limit(settings.limit());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          MemstackClientProperties.PREFIX + ".advisor.limit: " + e.getMessage(), e);
    }
    return builder.build();
  }

  @Bean
  @ConditionalOnProperty(
      prefix = MemstackClientProperties.PREFIX + ".advisor",
      name = "auto-register",
      havingValue = "true")
  ChatClientBuilderCustomizer memstackChatClientBuilderCustomizer(MemstackAdvisor advisor) {
    return builder -> builder.defaultAdvisors(advisor);
  }

  /** Counts in the application's meter registry; only when Micrometer is on the class path. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  static class Metrics {

    @Bean
    @ConditionalOnMissingBean
    MemstackMetrics memstackMetrics(ObjectProvider<MeterRegistry> registry) {
      MeterRegistry meters = registry.getIfUnique();
      return meters == null ? MemstackMetrics.NOOP : new MicrometerMemstackMetrics(meters);
    }
  }
}
