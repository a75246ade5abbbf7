package dev.memstack.host.lifecycle;

import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.coordination.ProviderCoordination;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** Binds {@code memstack.lifecycle.*} and makes the morning card of context calls. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(LifecycleProperties.class)
public class LifecycleConfiguration {

  @Bean
  MorningCards morningCards(
      CapabilityTools providers,
      ProviderCoordination coordination,
      LifecycleProperties properties,
      ObjectProvider<Clock> clock,
      JsonMapper json) {
    return new MorningCards(
        providers, coordination, properties, clock.getIfUnique(Clock::systemUTC), json);
  }
}
