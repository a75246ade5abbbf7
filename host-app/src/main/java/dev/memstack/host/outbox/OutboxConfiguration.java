package dev.memstack.host.outbox;

import dev.memstack.host.plugin.PluginHostProperties;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.shared.SharedStore;
import dev.memstack.outbox.DeliveryPort;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.TurnOutbox;
import dev.memstack.outbox.postgres.PostgresJournal;
import java.nio.file.Path;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The turn outbox beans ({@code memstack.outbox.*}): one {@link OutboxEngine}, which is both the
 * {@link TurnOutbox} and the {@link OwnerEraser}, over the {@link
 * dev.memstack.outbox.journal.FileJournal} ({@code type=journal}, the default), the {@link
 * dev.memstack.outbox.journal.MemoryJournal} ({@code type=memory}) or, in shared mode ({@code
 * memstack.shared.jdbc-url} set), the {@link PostgresJournal} ({@code type=postgres}, the default
 * and the only type allowed there: turns kept on one host could not be delivered or erased by
 * another), and the {@code outbox} health component.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(OutboxProperties.class)
public class OutboxConfiguration {

  @Bean(destroyMethod = "close")
  OutboxEngine turnOutbox(
      OutboxProperties outbox,
      ObjectProvider<PluginHostProperties> host,
      StackMembers members,
      ProviderCalls calls,
      ObjectProvider<SharedStore> sharedStore,
      @Value("${memstack.data-dir:./data}") Path dataDir) {
    SharedStore store = sharedStore.getIfAvailable();
    OutboxSettings settings = outbox.toSettings();
    PluginHostProperties instances = host.getIfAvailable();
    DeliveryPort port =
        new StackDeliveryPort(
            members,
            calls,
            instances == null ? Map.of() : StackDeliveryPort.policies(instances.providers()));
    OutboxProperties.Type type = outbox.effectiveType(store != null);
    if (store != null && type != OutboxProperties.Type.POSTGRES) {
      throw new IllegalStateException(
          "memstack.outbox.type="
              + type.name().toLowerCase(java.util.Locale.ROOT)
              + " keeps turns on this host, but shared mode is on (memstack.shared.jdbc-url is"
              + " set): another host could not deliver or erase them; remove memstack.outbox.type"
              + " or set it to postgres");
    }
    return switch (type) {
      case MEMORY -> OutboxEngine.inMemory(settings, port);
      case JOURNAL ->
          OutboxEngine.onDisk(
              outbox.dir() != null ? outbox.dir() : dataDir.resolve("outbox"), settings, port);
      case POSTGRES -> {
        if (store == null) {
          throw new IllegalStateException(
              "memstack.outbox.type=postgres needs the shared database: set"
                  + " memstack.shared.jdbc-url (and memstack.shared.username/password)");
        }
        yield OutboxEngine.start(
            PostgresJournal.open(store, outbox.shards(), outbox.leaseTtl()), settings, port);
      }
    };
  }

  /** Named {@code outbox}: the component's name in {@code /actuator/health}. */
  @Bean
  OutboxHealthIndicator outbox(
      TurnOutbox turnOutbox, StackMembers members, OutboxProperties properties) {
    return new OutboxHealthIndicator(turnOutbox, members, properties.degradedLag());
  }
}
