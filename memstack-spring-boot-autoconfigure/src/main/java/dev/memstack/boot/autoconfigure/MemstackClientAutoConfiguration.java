package dev.memstack.boot.autoconfigure;

import dev.memstack.client.MemstackClient;
import java.util.function.Supplier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link MemstackClient} from {@code memstack.client.*}, unless the application defines its own.
 * A missing or invalid {@code memstack.client.agent-id} stops the start with a message naming it.
 */
@AutoConfiguration
@EnableConfigurationProperties(MemstackClientProperties.class)
public class MemstackClientAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  MemstackClient memstackClient(MemstackClientProperties properties) {
    if (properties.agentId() == null || properties.agentId().isBlank()) {
      throw new IllegalStateException(
          key("agent-id") + " is required: the agent this application's memory belongs to");
    }
    MemstackClient.Builder builder =
        setting("base-url", () -> MemstackClient.builder(properties.baseUrl()));
    setting("agent-id", () -> builder.agentId(properties.agentId()));
    setting("timeout", () -> builder.timeout(properties.timeout()));
    setting("connect-timeout", () -> builder.connectTimeout(properties.connectTimeout()));
    return builder.token(properties.token()).build();
  }

  /** Applies one setting; a refused value stops the start naming its key. */
  private static <T> T setting(String name, Supplier<T> apply) {
    try {
      return apply.get();
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalStateException(key(name) + ": " + e.getMessage(), e);
    }
  }

  private static String key(String name) {
    return MemstackClientProperties.PREFIX + "." + name;
  }
}
