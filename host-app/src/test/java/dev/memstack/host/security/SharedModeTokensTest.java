package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.plugin.PluginHostProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** In shared mode the API tokens come from configuration only: no host generates its own. */
class SharedModeTokensTest {

  @TempDir Path dir;

  @Configuration(proxyBeanMethods = false)
  @EnableConfigurationProperties(PluginHostProperties.class)
  static class Host {
    @Bean
    JsonMapper jsonMapper() {
      return JsonMapper.builder().build();
    }
  }

  private ApplicationContextRunner sharedHost() {
    return new ApplicationContextRunner()
        .withUserConfiguration(Host.class, SecurityConfiguration.class)
        .withPropertyValues(
            "memstack.data-dir=" + dir.resolve("data"),
            "memstack.shared.jdbc-url=jdbc:postgresql://db.example:5432/memstack");
  }

  @Test
  void withoutConfiguredTokensTheStartIsRefusedNamingTheTokenKeyAndNoFileIsWritten() {
    sharedHost()
        .run(
            context -> {
              assertThat(context).hasFailed();
              Throwable cause = context.getStartupFailure();
              while (cause.getCause() != null) {
                cause = cause.getCause();
              }
              assertThat(cause)
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessageContaining("memstack.security.tokens is required in shared mode")
                  .hasMessageContaining("memstack.shared.jdbc-url is set")
                  .hasMessageContaining("MEMSTACK_SECURITY_TOKENS_0_TOKEN");
            });
    assertThat(Files.exists(dir.resolve("data").resolve(ApiTokenFile.NAME))).isFalse();
  }

  @Test
  void configuredTokensStartAsOnASingleHost() {
    sharedHost()
        .withPropertyValues(
            "memstack.security.tokens[0].token=shared-admin-0123456789",
            "memstack.security.tokens[0].role=admin")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(
                      context.getBean(BearerTokens.class).authenticate("shared-admin-0123456789"))
                  .isPresent();
            });
    assertThat(Files.exists(dir.resolve("data").resolve(ApiTokenFile.NAME))).isFalse();
  }

  @Test
  void securityOffStillStartsForLocalTests() {
    sharedHost()
        .withPropertyValues("memstack.security.enabled=false")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void aBlankSharedUrlIsNotSharedMode() {
    new ApplicationContextRunner()
        .withUserConfiguration(Host.class, SecurityConfiguration.class)
        .withPropertyValues("memstack.data-dir=" + dir.resolve("data"), "memstack.shared.jdbc-url=")
        .run(context -> assertThat(context).hasNotFailed());
    assertThat(Files.exists(dir.resolve("data").resolve(ApiTokenFile.NAME))).isTrue();
  }
}
