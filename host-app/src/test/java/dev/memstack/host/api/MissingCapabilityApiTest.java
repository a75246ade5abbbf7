package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Without a running provider that claims the capability, the workspace routes answer 503 and the
 * memory-job routes 404, each with a JSON body naming the missing capability; the instance a
 * setting names is named as well.
 */
@HostTest
class MissingCapabilityApiTest {

  /** The build's plugins with builtin disabled, the admin token. */
  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.allPlugins("missing-capability")
          .disabled("builtin")
          .with("memstack.api.workspace-provider", "vector");

  @Autowired HostClient client;

  @Test
  void theWorkspaceRoutesAnswer503NamingTheCapabilityAndTheInstance() {
    Answer list = client.get("/api/v1/agents/a1/workspace/files");
    assertThat(list.status()).as(list.body()).isEqualTo(503);
    assertThat(list.json().get("error").asString()).isEqualTo("unavailable");
    assertThat(list.json().get("message").asString())
        .contains("WORKSPACE_FILES")
        .contains("'vector'")
        .contains("memstack.api.workspace-provider");
  }

  @Test
  void theJobRoutesAnswer404NamingTheCapabilityAtBothPaths() {
    for (String base : new String[] {"/api/v1/agents/a1/memory", "/api/v1/memory/a1"}) {
      for (Answer answer :
          new Answer[] {
            client.post(base + "/summarize/c1", "{\"ownerKey\":\"user:1\"}"),
            client.post(base + "/emergence", "{}"),
            client.get(base + "/dreaming/status")
          }) {
        assertThat(answer.status()).as(answer.body()).isEqualTo(404);
        assertThat(answer.json().get("error").asString()).isEqualTo("not_found");
        assertThat(answer.json().get("message").asString())
            .isEqualTo("no running provider claims the capability MEMORY_JOBS");
      }
    }
  }
}
