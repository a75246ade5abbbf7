package dev.memstack.host.shared;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The shared database's pool, when {@code memstack.shared.jdbc-url} is set. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SharedProperties.class)
public class SharedDatabaseConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnProperty(prefix = "memstack.shared", name = "jdbc-url")
  SharedStore sharedStore(SharedProperties properties) {
    return new SharedStore(properties);
  }
}
