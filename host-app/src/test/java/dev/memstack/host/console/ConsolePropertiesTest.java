package dev.memstack.host.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * {@code memstack.console.*} as the host binds it: its defaults, and a wrong value names its key.
 */
class ConsolePropertiesTest {

  @Configuration(proxyBeanMethods = false)
  @EnableConfigurationProperties(ConsoleProperties.class)
  static class Binding {}

  private final ApplicationContextRunner context =
      new ApplicationContextRunner().withUserConfiguration(Binding.class);

  @Test
  @DisplayName("samples every minute and keeps an hour by default")
  void defaults() {
    context.run(
        app -> {
          ConsoleProperties properties = app.getBean(ConsoleProperties.class);
          assertThat(properties.statsSampleInterval()).isEqualTo(Duration.ofMinutes(1));
          assertThat(properties.statsRetention()).isEqualTo(Duration.ofHours(1));
        });
  }

  @ParameterizedTest(name = "{0}={1}")
  @DisplayName("a wrong value stops the start naming its key")
  @CsvSource({
    "memstack.console.stats-sample-interval, 500ms",
    "memstack.console.stats-sample-interval, 2h",
    "memstack.console.stats-retention, 10s",
    "memstack.console.stats-retention, 8d"
  })
  void aWrongValueNamesItsKey(String key, String value) {
    context
        .withPropertyValues(key + "=" + value)
        .run(
            app -> {
              assertThat(app).hasFailed();
              assertThat(app.getStartupFailure()).hasStackTraceContaining(key);
            });
  }
}
