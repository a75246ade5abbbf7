package dev.memstack.host.outbox;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.stack.StackProperties;
import java.nio.file.Path;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The turn outbox beans ({@code memstack.outbox.*}): the durable {@link JournalTurnOutbox} as the
 * {@link TurnOutbox} unless {@code memstack.outbox.type=memory} (then the stack's in-memory outbox
 * is used), the matching {@link OwnerEraser}, and the {@code outbox} health component.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({OutboxProperties.class, StackProperties.class})
public class OutboxConfiguration {

  @Bean(destroyMethod = "close")
  @Conditional(JournalSelected.class)
  JournalTurnOutbox journalTurnOutbox(
      OutboxProperties outbox,
      StackProperties stack,
      StackMembers members,
      ProviderCalls calls,
      @Value("${memstack.data-dir:./data}") Path dataDir) {
    Path dir = outbox.dir() != null ? outbox.dir() : dataDir.resolve("outbox");
    return JournalTurnOutbox.open(dir, outbox, stack.sync(), members, calls);
  }

  @Bean
  @ConditionalOnProperty(prefix = "memstack.outbox", name = "type", havingValue = "memory")
  DirectOwnerEraser directOwnerEraser(StackMembers members, ProviderCalls calls) {
    return new DirectOwnerEraser(members, calls);
  }

  /**
   * Every {@code memstack.outbox.type} but {@code memory} selects the journal, so that a wrong
   * value reaches the binding of {@link OutboxProperties} and fails there, naming the key.
   */
  static final class JournalSelected implements Condition {
    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
      String type = context.getEnvironment().getProperty("memstack.outbox.type", "journal");
      return !"memory".equalsIgnoreCase(type.trim());
    }
  }

  /** Named {@code outbox}: the component's name in {@code /actuator/health}. */
  @Bean
  OutboxHealthIndicator outbox(
      TurnOutbox turnOutbox, StackMembers members, OutboxProperties properties) {
    return new OutboxHealthIndicator(turnOutbox, members, properties.degradedLag());
  }
}
