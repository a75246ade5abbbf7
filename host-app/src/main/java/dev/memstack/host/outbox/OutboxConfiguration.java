package dev.memstack.host.outbox;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMembers;
import java.nio.file.Path;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The turn outbox beans ({@code memstack.outbox.*}): one {@link OutboxEngine}, which is both the
 * {@link TurnOutbox} and the {@link OwnerEraser}, over the {@link FileJournal} ({@code
 * type=journal}, the default) or the {@link MemoryJournal} ({@code type=memory}), and the {@code
 * outbox} health component.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(OutboxProperties.class)
public class OutboxConfiguration {

  @Bean(destroyMethod = "close")
  OutboxEngine turnOutbox(
      OutboxProperties outbox,
      StackMembers members,
      ProviderCalls calls,
      @Value("${memstack.data-dir:./data}") Path dataDir) {
    return switch (outbox.type()) {
      case MEMORY -> OutboxEngine.inMemory(outbox, members, calls);
      case JOURNAL ->
          OutboxEngine.onDisk(
              outbox.dir() != null ? outbox.dir() : dataDir.resolve("outbox"),
              outbox,
              members,
              calls);
    };
  }

  /** Named {@code outbox}: the component's name in {@code /actuator/health}. */
  @Bean
  OutboxHealthIndicator outbox(
      TurnOutbox turnOutbox, StackMembers members, OutboxProperties properties) {
    return new OutboxHealthIndicator(turnOutbox, members, properties.degradedLag());
  }
}
