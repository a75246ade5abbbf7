package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.plugin.PluginHostProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** The security beans as the host builds them at start, one context per "start". */
@ExtendWith(OutputCaptureExtension.class)
class SecurityConfigurationTest {

  @TempDir Path dir;

  @Configuration(proxyBeanMethods = false)
  @EnableConfigurationProperties(PluginHostProperties.class)
  static class Host {
    @Bean
    JsonMapper jsonMapper() {
      return JsonMapper.builder().build();
    }
  }

  private ApplicationContextRunner host() {
    return new ApplicationContextRunner()
        .withUserConfiguration(Host.class, SecurityConfiguration.class)
        .withPropertyValues("memstack.data-dir=" + dir.resolve("data"));
  }

  @Test
  void withoutConfiguredTokensAnAdminTokenIsGeneratedOnceAndReusedAcrossRestarts(
      CapturedOutput output) throws Exception {
    Path file = dir.resolve("data").resolve("api-token");
    AtomicReference<String> first = new AtomicReference<>();

    host()
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              first.set(Files.readString(file).strip());
              Caller caller =
                  context.getBean(BearerTokens.class).authenticate(first.get()).orElseThrow();
              assertThat(caller.role()).isEqualTo(Role.ADMIN);
              assertThat(caller.ownerBound()).isFalse();
            });
    host()
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(Files.readString(file).strip()).isEqualTo(first.get());
              assertThat(context.getBean(BearerTokens.class).authenticate(first.get())).isPresent();
            });

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(output)
        .contains("generated an admin token in " + file.toAbsolutePath())
        .contains("using the admin token in " + file.toAbsolutePath())
        .doesNotContain(first.get());
  }

  @Test
  void configuredTokensReplaceTheGeneratedOneAndAreSummedUpWithoutValues(CapturedOutput output) {
    host()
        .withPropertyValues(
            "memstack.security.tokens[0].token=configured-admin-0123456789",
            "memstack.security.tokens[0].role=admin",
            "memstack.security.tokens[1].token=configured-user-0123456789",
            "memstack.security.tokens[1].role=member",
            "memstack.security.tokens[1].owner=api:42")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              BearerTokens tokens = context.getBean(BearerTokens.class);
              assertThat(tokens.size()).isEqualTo(2);
              assertThat(tokens.authenticate("configured-user-0123456789").orElseThrow().owner())
                  .isEqualTo(OwnerBinding.of("api:42"));
            });

    assertThat(dir.resolve("data").resolve("api-token")).doesNotExist();
    assertThat(output)
        .contains("2 tokens from memstack.security.tokens (1 admin, 1 member; 1 bound to owners)")
        .doesNotContain("configured-admin-0123456789")
        .doesNotContain("configured-user-0123456789");
  }

  @Test
  void turningCheckingOffWarnsLoudlyAndTouchesNoTokenFile(CapturedOutput output) {
    host()
        .withPropertyValues("memstack.security.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(BearerTokens.class).checking()).isFalse();
            });

    assertThat(dir.resolve("data").resolve("api-token")).doesNotExist();
    assertThat(output).contains("WARN").contains("API AUTHENTICATION IS OFF");
  }

  @Test
  void aWrongTokenSettingStopsTheStartNamingTheKeyButNotTheToken(CapturedOutput output) {
    host()
        .withPropertyValues(
            "memstack.security.tokens[0].token=too-short", "memstack.security.tokens[0].role=admin")
        .run(
            context -> {
              assertThat(context).hasFailed();
              StringBuilder all = new StringBuilder();
              for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                all.append(t.getMessage()).append('\n');
              }
              assertThat(all.toString())
                  .contains("memstack.security.tokens[0].token must have at least 16 characters")
                  .doesNotContain("too-short");
            });
    assertThat(output).doesNotContain("too-short");
  }
}
