package dev.memstack.host.metrics;

import dev.memstack.host.plugin.PluginHostProperties;
import dev.memstack.host.stack.MemoryStack;
import dev.memstack.outbox.TurnOutbox;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@link HostMetrics} gauges, bound to the host's meter registry by Spring Boot. */
@Configuration(proxyBeanMethods = false)
public class MetricsConfiguration {

  @Bean
  HostMetrics hostMetrics(PluginHostProperties host, TurnOutbox outbox, MemoryStack stack) {
    return new HostMetrics(List.copyOf(host.providers().keySet()), outbox, stack::breakerStates);
  }
}
