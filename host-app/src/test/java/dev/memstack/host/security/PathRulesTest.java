package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

@DisplayName("The path rules of the token filter")
class PathRulesTest {

  private final PathRules defaults = SecurityConfiguration.pathRules(new MockEnvironment());

  @Test
  void openTheHealthStatusTheOpenApiDocumentAndTheSwaggerUi() {
    assertThat(defaults.isOpen("/actuator/health")).isTrue();
    assertThat(defaults.isOpen("/actuator/health/liveness")).isTrue();
    assertThat(defaults.isOpen("/v3/api-docs")).isTrue();
    assertThat(defaults.isOpen("/v3/api-docs/swagger-config")).isTrue();
    assertThat(defaults.isOpen("/v3/api-docs.yaml")).isTrue();
    assertThat(defaults.isOpen("/swagger-ui.html")).isTrue();
    assertThat(defaults.isOpen("/swagger-ui/index.html")).isTrue();
  }

  @Test
  void keepEverythingElseClosedEvenWhenItStartsTheSame() {
    assertThat(defaults.isOpen("/api/v1/plugins")).isFalse();
    assertThat(defaults.isOpen("/actuator/metrics")).isFalse();
    assertThat(defaults.isOpen("/actuator/prometheus")).isFalse();
    assertThat(defaults.isOpen("/actuator/healthz")).isFalse();
    assertThat(defaults.isOpen("/v3/api-docsX")).isFalse();
    assertThat(defaults.isOpen("/swagger-uiX/x")).isFalse();
  }

  @Test
  void askAnAdminTokenForThePrometheusScrapeOnly() {
    assertThat(defaults.needsAdmin("/actuator/prometheus")).isTrue();
    assertThat(defaults.needsAdmin("/actuator/metrics")).isFalse();
    assertThat(defaults.needsAdmin("/api/v1/providers")).isFalse();
  }

  @Test
  void followTheConfiguredPaths() {
    PathRules moved =
        SecurityConfiguration.pathRules(
            new MockEnvironment()
                .withProperty("management.endpoints.web.base-path", "/manage")
                .withProperty("management.endpoints.web.path-mapping.prometheus", "scrape")
                .withProperty("springdoc.api-docs.path", "/openapi"));
    assertThat(moved.isOpen("/manage/health")).isTrue();
    assertThat(moved.isOpen("/openapi")).isTrue();
    assertThat(moved.isOpen("/v3/api-docs")).isFalse();
    assertThat(moved.needsAdmin("/manage/scrape")).isTrue();
    assertThat(moved.needsAdmin("/actuator/prometheus")).isFalse();
  }
}
