package dev.memstack.host.coordination;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.shared.SharedStore;
import dev.memstack.host.stack.SystemPromptCache;
import java.sql.SQLException;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The providers' coordination and the system-prompt invalidation: in process on a single host, on
 * the shared database when {@code memstack.shared.jdbc-url} is set (a {@link SharedStore} bean).
 */
@Configuration(proxyBeanMethods = false)
public class CoordinationConfiguration {

  @Bean
  ProviderCoordination providerCoordination(
      ObjectProvider<SharedStore> shared, ObjectProvider<Clock> clock) {
    SharedStore store = shared.getIfAvailable();
    if (store == null) {
      return new InProcessCoordination(clock.getIfUnique(Clock::systemUTC));
    }
    try {
      return new SharedCoordination(store, SharedCoordination.newHostId());
    } catch (SQLException e) {
      throw new IllegalStateException(
          "memstack.shared.jdbc-url: cannot create the coordination tables on "
              + store.describe()
              + ": "
              + e,
          e);
    }
  }

  @Bean(destroyMethod = "close")
  SystemPromptInvalidation systemPromptInvalidation(
      ProviderCoordination coordination,
      SystemPromptCache cache,
      ObjectProvider<SharedStore> shared,
      ObjectProvider<SharedProperties> properties) {
    SharedStore store = shared.getIfAvailable();
    if (store == null || !(coordination instanceof SharedCoordination sharedCoordination)) {
      return SystemPromptInvalidation.local(cache::invalidate);
    }
    return new SharedPromptInvalidation(
        store,
        sharedCoordination.hostId(),
        cache::invalidate,
        properties.getObject().connectTimeout());
  }
}
