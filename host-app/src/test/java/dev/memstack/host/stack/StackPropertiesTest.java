package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

class StackPropertiesTest {

  private static StackProperties bind(Map<String, String> values) {
    return new Binder(new MapConfigurationPropertySource(values))
        .bindOrCreate("memstack.stack", StackProperties.class);
  }

  @Test
  void withoutConfigurationEverySettingHasItsDefault() {
    StackProperties bound = bind(Map.of());

    assertThat(bound).isEqualTo(StackProperties.defaults());
    assertThat(bound.context().deadline()).isEqualTo(Duration.ofMillis(1500));
    assertThat(bound.context().providerTimeout()).isEqualTo(Duration.ofMillis(1000));
    assertThat(bound.context().budget()).isEqualTo(8000);
    assertThat(bound.context().defaultLimit()).isEqualTo(10);
    assertThat(bound.context().maxLateCallsPerProvider()).isEqualTo(8);
    assertThat(bound.context().callThreads()).isEqualTo(256);
    assertThat(bound.systemPrompt().budget()).isEqualTo(24_000);
    assertThat(bound.systemPrompt().timeout()).isEqualTo(Duration.ofMillis(1000));
    assertThat(bound.systemPrompt().retryAfter()).isEqualTo(Duration.ofSeconds(2));
    assertThat(bound.breaker().failureThreshold()).isEqualTo(5);
    assertThat(bound.breaker().openDuration()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void kebabCaseKeysBindAndTheRestKeepTheirDefaults() {
    StackProperties bound =
        bind(
            Map.of(
                "memstack.stack.context.provider-timeout", "250ms",
                "memstack.stack.breaker.open-duration", "2m"));

    assertThat(bound.context().providerTimeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(bound.context().deadline()).isEqualTo(Duration.ofMillis(1500));
    assertThat(bound.breaker().openDuration()).isEqualTo(Duration.ofMinutes(2));
    assertThat(bound.breaker().failureThreshold()).isEqualTo(5);
  }

  @Test
  void aValueOutOfRangeFailsNamingTheKey() {
    assertThatThrownBy(() -> bind(Map.of("memstack.stack.context.deadline", "0s")))
        .isInstanceOf(BindException.class)
        .rootCause()
        .hasMessageContaining("memstack.stack.context.deadline must be positive");
    assertThatThrownBy(() -> bind(Map.of("memstack.stack.context.default-limit", "500")))
        .rootCause()
        .hasMessageContaining("memstack.stack.context.default-limit must be 1-200");
  }
}
