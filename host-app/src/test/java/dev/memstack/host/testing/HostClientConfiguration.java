package dev.memstack.host.testing;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/** The {@link HostClient} of a {@link HostTest}, with the admin token, on the random port. */
@TestConfiguration(proxyBeanMethods = false)
public class HostClientConfiguration {

  /** The client; the port is read at each request, once the server listens. */
  @Bean
  HostClient hostClient(Environment environment) {
    return new HostClient(
        () -> environment.getRequiredProperty("local.server.port", Integer.class));
  }
}
