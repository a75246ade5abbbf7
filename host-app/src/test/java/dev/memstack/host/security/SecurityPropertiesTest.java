package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

class SecurityPropertiesTest {

  private static SecurityProperties bindEnvironment(Map<String, Object> variables) {
    MutablePropertySources sources = new MutablePropertySources();
    sources.addFirst(
        new SystemEnvironmentPropertySource(
            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
    return bind(sources);
  }

  private static SecurityProperties bindProperties(Map<String, Object> properties) {
    MutablePropertySources sources = new MutablePropertySources();
    sources.addFirst(new MapPropertySource("test", properties));
    return bind(sources);
  }

  private static SecurityProperties bind(MutablePropertySources sources) {
    return new Binder(ConfigurationPropertySources.from(sources))
        .bindOrCreate("memstack.security", SecurityProperties.class);
  }

  @Test
  void tokensComeFromEnvironmentVariablesByIndex() {
    Map<String, Object> variables = new LinkedHashMap<>();
    variables.put("MEMSTACK_SECURITY_TOKENS_0_TOKEN", "platform-token-0123456789");
    variables.put("MEMSTACK_SECURITY_TOKENS_0_ROLE", "member");
    variables.put("MEMSTACK_SECURITY_TOKENS_0_OWNER", "api:*");
    variables.put("MEMSTACK_SECURITY_TOKENS_1_TOKEN", "operator-token-0123456789");
    variables.put("MEMSTACK_SECURITY_TOKENS_1_ROLE", "ADMIN");

    SecurityProperties properties = bindEnvironment(variables);

    assertThat(properties.enabled()).isTrue();
    assertThat(properties.tokens()).hasSize(2);
    assertThat(properties.tokens().get(0).token()).isEqualTo("platform-token-0123456789");
    assertThat(properties.tokens().get(0).role()).isEqualTo(Role.MEMBER);
    assertThat(properties.tokens().get(0).binding()).isEqualTo(OwnerBinding.of("api:*"));
    assertThat(properties.tokens().get(1).role()).isEqualTo(Role.ADMIN);
    assertThat(properties.tokens().get(1).binding()).isNull();
  }

  @Test
  void checkingIsOnWithNoTokensByDefaultAndCanBeTurnedOffFromTheEnvironment() {
    assertThat(bindProperties(Map.of())).isEqualTo(SecurityProperties.defaults());
    assertThat(bindEnvironment(Map.of("MEMSTACK_SECURITY_ENABLED", "false")).enabled()).isFalse();
  }

  @Test
  void aShortTokenStopsTheBindNamingTheKeyButNotTheToken() {
    assertRejected(
        Map.of(
            "memstack.security.tokens[0].token", "short-secret",
            "memstack.security.tokens[0].role", "admin"),
        "memstack.security.tokens[0].token must have at least 16 characters",
        "short-secret");
  }

  @Test
  void aTokenWithWhitespaceStopsTheBind() {
    assertRejected(
        Map.of(
            "memstack.security.tokens[0].token", "spaced secret 0123456789",
            "memstack.security.tokens[0].role", "admin"),
        "memstack.security.tokens[0].token must be printable ASCII",
        "spaced secret");
  }

  @Test
  void aMissingRoleAWrongRoleAndAWrongOwnerStopTheBindNamingTheKey() {
    assertRejected(
        Map.of("memstack.security.tokens[0].token", "role-less-0123456789"),
        "memstack.security.tokens[0].role is required",
        "role-less-0123456789");
    assertThatThrownBy(
            () ->
                bindProperties(
                    Map.of(
                        "memstack.security.tokens[0].token", "wrong-role-0123456789",
                        "memstack.security.tokens[0].role", "owner")))
        .isInstanceOf(BindException.class)
        .hasMessageContaining("memstack.security.tokens[0].role");
    assertRejected(
        Map.of(
            "memstack.security.tokens[0].token", "bad-owner-0123456789",
            "memstack.security.tokens[0].role", "member",
            "memstack.security.tokens[0].owner", "API:*"),
        "memstack.security.tokens[0].owner",
        "bad-owner-0123456789");
  }

  @Test
  void theSameTokenTwiceStopsTheBind() {
    assertRejected(
        Map.of(
            "memstack.security.tokens[0].token", "twice-0123456789ab",
            "memstack.security.tokens[0].role", "viewer",
            "memstack.security.tokens[1].token", "twice-0123456789ab",
            "memstack.security.tokens[1].role", "admin"),
        "memstack.security.tokens[1].token is the same as an earlier token",
        "twice-0123456789ab");
  }

  @Test
  void toStringNeverShowsATokenValue() {
    SecurityProperties properties =
        new SecurityProperties(
            true,
            List.of(new SecurityProperties.Token("hidden-token-0123456789", Role.ADMIN, null)));

    assertThat(properties.toString()).doesNotContain("hidden-token").contains("ADMIN");
  }

  private static void assertRejected(
      Map<String, Object> properties, String message, String secret) {
    assertThatThrownBy(() -> bindProperties(properties))
        .isInstanceOf(BindException.class)
        .satisfies(
            e -> {
              StringBuilder all = new StringBuilder();
              for (Throwable t = e; t != null; t = t.getCause()) {
                all.append(t.getMessage()).append('\n');
              }
              assertThat(all.toString()).contains(message).doesNotContain(secret);
              // the start-up failure report prints the property the binder stopped at
              BindException bind = (BindException) e;
              if (bind.getProperty() != null) {
                assertThat(String.valueOf(bind.getProperty().getValue())).doesNotContain(secret);
              }
            });
  }
}
