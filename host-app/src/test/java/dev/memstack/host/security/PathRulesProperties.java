package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.springframework.mock.env.MockEnvironment;

/**
 * The token filter's path rules ({@link PathRules}, as {@link SecurityConfiguration} builds them)
 * under arbitrary paths: they never throw; a path is open only when it is an open rule or lies
 * below one (never a REST path, never a look-alike such as {@code /actuator/healthz} or a different
 * case); and every path at or below the Prometheus scrape needs an admin token.
 */
class PathRulesProperties {

  private static final PathRules RULES = SecurityConfiguration.pathRules(new MockEnvironment());

  private static final List<String> PIECES =
      List.of(
          "/",
          "/",
          "actuator",
          "health",
          "Health",
          "prometheus",
          "api",
          "v1",
          "v3",
          "api-docs",
          ".yaml",
          "swagger-ui",
          ".html",
          "z",
          ".",
          "..",
          "%2F",
          "\u0000",
          " ",
          "\uFF0F",
          "\u0430");

  @Property(tries = 1500, seed = "250904")
  void onlyAnOpenRuleAndWhatLiesBelowItIsOpen(@ForAll("paths") String path) {
    boolean open = RULES.isOpen(path);
    boolean admin = RULES.needsAdmin(path);
    boolean underOpenRule =
        RULES.open().stream().anyMatch(rule -> path.equals(rule) || path.startsWith(rule + "/"));
    assertThat(open).as(path).isEqualTo(underOpenRule);
    if (path.startsWith("/api/") || path.equals("/api")) {
      assertThat(open).as(path).isFalse();
    }
    assertThat(open && admin).as("open and admin-only: %s", path).isFalse();
  }

  @Property(tries = 500, seed = "250905")
  void everythingBelowThePrometheusScrapeNeedsAnAdmin(@ForAll("paths") String below) {
    assertThat(RULES.needsAdmin("/actuator/prometheus")).isTrue();
    String path = "/actuator/prometheus" + (below.startsWith("/") ? below : "/" + below);
    assertThat(RULES.needsAdmin(path)).as(path).isTrue();
    assertThat(RULES.isOpen(path)).as(path).isFalse();
  }

  @Provide
  Arbitrary<String> paths() {
    return Arbitraries.oneOf(
        Arbitraries.of(PIECES).list().ofMaxSize(8).map(pieces -> String.join("", pieces)),
        Arbitraries.strings().all().ofMaxLength(30),
        Arbitraries.of(PIECES)
            .list()
            .ofMaxSize(4)
            .map(pieces -> "/actuator/health" + String.join("", pieces)));
  }
}
