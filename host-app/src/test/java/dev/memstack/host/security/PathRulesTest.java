package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.mock.env.MockEnvironment;

@DisplayName("The path rules of the token filter")
class PathRulesTest {

  private final PathRules defaults = SecurityConfiguration.pathRules(new MockEnvironment());

  /**
   * The health status, the OpenAPI document, the Swagger UI and the console's static files are
   * open; everything else is closed even when it starts the same.
   */
  @ParameterizedTest(name = "{0} open: {1}")
  @CsvSource({
    "/actuator/health, true",
    "/actuator/health/liveness, true",
    "/v3/api-docs, true",
    "/v3/api-docs/swagger-config, true",
    "/v3/api-docs.yaml, true",
    "/swagger-ui.html, true",
    "/swagger-ui/index.html, true",
    "/console, true",
    "/console/, true",
    "/console/app.js, true",
    "/consoleX/app.js, false",
    "/api/v1/plugins, false",
    "/actuator/metrics, false",
    "/actuator/prometheus, false",
    "/actuator/healthz, false",
    "/v3/api-docsX, false",
    "/swagger-uiX/x, false"
  })
  void openOnlyTheHealthStatusTheOpenApiDocumentTheSwaggerUiAndTheConsole(
      String path, boolean open) {
    assertThat(defaults.isOpen(path)).isEqualTo(open);
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
