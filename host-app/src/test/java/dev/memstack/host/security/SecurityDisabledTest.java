package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import tools.jackson.databind.JsonNode;

/** {@code memstack.security.enabled=false}: every call passes without a token, loudly. */
@ExtendWith(OutputCaptureExtension.class)
@HostTest
class SecurityDisabledTest {

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.fixtureOnly("security-off").with("memstack.security.enabled", "false");

  @Autowired HostClient client;

  @Test
  void callsWithoutATokenGoThroughAsAnAdminAndTheStartWarned(CapturedOutput output)
      throws Exception {
    HostClient api = client.as(null);
    Answer plugins = api.get("/api/v1/plugins");
    Answer providers = api.get("/api/v1/providers");
    Answer turn =
        api.post(
            "/api/v1/agents/a1/memory/turns",
            "{\"ownerKey\":\"api:1\",\"conversationId\":\"c1\",\"userMessage\":\"hi\","
                + "\"assistantReply\":\"ok\",\"triggerSource\":\"api\"}");
    Answer anyToken = api.as("whatever").get("/api/v1/plugins");
    JsonNode health = api.get("/actuator/health").json();

    assertThat(plugins.status()).as(plugins.body()).isEqualTo(200);
    assertThat(providers.status()).as(providers.body()).isEqualTo(200);
    assertThat(turn.status()).as(turn.body()).isEqualTo(202);
    assertThat(anyToken.status()).isEqualTo(200);
    assertThat(health.has("components")).isTrue();
    assertThat(HOST.data().resolve("api-token")).doesNotExist();
    assertThat(output).contains("WARN").contains("API AUTHENTICATION IS OFF");
  }
}
