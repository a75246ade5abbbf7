package dev.memstack.host.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.security.TestTokens;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.TestHost;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16: {@code /actuator/prometheus} of a real host gives the provider call timers, the outbox
 * backlog and the circuit breaker states, to an admin token only.
 */
@DisplayName("The Prometheus scrape")
class PrometheusEndpointTest {

  private static final String VIEWER = "prometheus-viewer-token-0123456789";
  private static final String MEMBER = "prometheus-member-token-0123456789";

  @RegisterExtension
  static final TestHost HOST =
      TestHost.create("prometheus")
          .with("memstack.providers.vector.enabled", "false")
          .withToken(VIEWER, "viewer", null)
          .withToken(MEMBER, "member", null);

  private static final HostClient api = HOST.client();

  @Test
  void givesAnAdminTheProviderTimersTheOutboxLagAndTheBreakers() {
    assertThat(api.context("a1", "user:1", "anything about tea").status()).isEqualTo(200);
    assertThat(api.turn("a1", "user:1", "t-prom-1", "I like tea", "Noted.").status())
        .isEqualTo(202);

    HostClient.Answer scrape = api.get("/actuator/prometheus", TestTokens.ADMIN);
    assertThat(scrape.status()).as(scrape.toString()).isEqualTo(200);
    assertThat(scrape.body())
        .contains("memstack_provider_calls_seconds_count{")
        .containsPattern("memstack_provider_calls_seconds_count\\{[^}]*hook=\"prefetch\"")
        .containsPattern("memstack_provider_calls_seconds_count\\{[^}]*provider=\"builtin\"")
        .containsPattern("memstack_outbox_lag_seconds\\{[^}]*provider=\"builtin\"")
        .containsPattern("memstack_outbox_pending\\{[^}]*provider=\"builtin\"")
        .containsPattern(
            "memstack_provider_breaker\\{[^}]*provider=\"builtin\",state=\"closed\"} 1(\\.0)?\n")
        .containsPattern(
            "memstack_provider_breaker\\{[^}]*provider=\"builtin\",state=\"open\"} 0(\\.0)?\n")
        // a provider that does not run has no breaker state
        .containsPattern(
            "memstack_provider_breaker\\{[^}]*provider=\"mem0\",state=\"closed\"} 0(\\.0)?\n");
  }

  @Test
  void refusesEveryoneButAnAdmin() {
    HostClient.Answer none = api.get("/actuator/prometheus", null);
    assertThat(none.status()).isEqualTo(401);
    assertThat(none.json().get("error").asString()).isEqualTo("unauthorized");
    for (String token : new String[] {VIEWER, MEMBER}) {
      HostClient.Answer refused = api.get("/actuator/prometheus", token);
      assertThat(refused.status()).as(refused.toString()).isEqualTo(403);
      assertThat(refused.json().get("error").asString()).isEqualTo("forbidden");
      assertThat(refused.body()).doesNotContain("memstack_");
      // the other Actuator endpoints stay open to any token
      assertThat(api.get("/actuator/metrics", token).status()).isEqualTo(200);
    }
  }
}
