package dev.memstack.host.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.outbox.OutboxSettingsBuilder;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogs;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

class DeprecatedOutboxKeysTest {

  private static OutboxProperties bind(Map<String, Object> values) {
    StandardEnvironment environment = new StandardEnvironment();
    environment.getPropertySources().addFirst(new MapPropertySource("test", values));
    new DeprecatedOutboxKeys(new DeferredLogs())
        .postProcessEnvironment(environment, new SpringApplication());
    return Binder.get(environment).bindOrCreate("memstack.outbox", OutboxProperties.class);
  }

  @Test
  void theOldSyncKeysAreReadAsTheirOutboxReplacements() {
    OutboxProperties bound =
        bind(
            Map.of(
                "memstack.stack.sync.initial-backoff", "50ms",
                "memstack.stack.sync.max-backoff", "2s",
                "memstack.stack.sync.shutdown-grace", "0s",
                "memstack.stack.sync.queue-capacity", "77"));

    assertThat(bound.initialBackoff()).isEqualTo(Duration.ofMillis(50));
    assertThat(bound.maxBackoff()).isEqualTo(Duration.ofSeconds(2));
    assertThat(bound.shutdownGrace()).isZero();
    assertThat(bound.maxPending()).isEqualTo(77);
  }

  @Test
  void aReplacementThatIsSetWinsOverItsOldKey() {
    OutboxProperties bound =
        bind(
            Map.of(
                "memstack.stack.sync.initial-backoff", "50ms",
                "memstack.outbox.initial-backoff", "3s",
                "memstack.outbox.max-pending", "9",
                "memstack.stack.sync.queue-capacity", "77"));

    assertThat(bound.initialBackoff()).isEqualTo(Duration.ofSeconds(3));
    assertThat(bound.maxPending()).isEqualTo(9);
  }

  @Test
  void withoutOldKeysNothingChanges() {
    OutboxProperties bound = bind(Map.of("memstack.outbox.fsync", "false"));

    assertThat(bound.toSettings()).isEqualTo(OutboxSettingsBuilder.defaults().fsync(false).build());
    assertThat(bound.type()).isNull();
  }
}
