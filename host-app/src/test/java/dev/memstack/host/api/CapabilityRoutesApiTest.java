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
 * The workspace and memory-job routes find their provider by capability, not by the id {@code
 * builtin}: here the only builtin instance is called {@code files}, and the job routes answer the
 * same at {@code /api/v1/agents/{agentId}/memory/...} and at the alias {@code
 * /api/v1/memory/{agentId}/...}.
 */
@HostTest
class CapabilityRoutesApiTest {

  /** The build's plugins with builtin disabled, the admin token. */
  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.allPlugins("capability-routes")
          .disabled("builtin")
          .with("memstack.providers.files.type", "builtin")
          .with("memstack.providers.files.order", "0");

  @Autowired HostClient client;

  @Test
  void theWorkspaceRoutesUseTheInstanceThatClaimsWorkspaceFiles() {
    Answer written =
        client.put(
            "/api/v1/agents/a1/workspace/files/KNOWLEDGE.md",
            "{\"content\":\"# Knowledge\\nThe kettle is blue.\\n\",\"scope\":\"team\"}");
    assertThat(written.status()).as(written.body()).isEqualTo(200);

    Answer read = client.get("/api/v1/agents/a1/workspace/files/KNOWLEDGE.md?scope=team");
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(read.json().get("content").asString()).contains("The kettle is blue.");

    Answer viaTool =
        client.post(
            "/api/v1/agents/a1/tools/files/read_workspace_memory_file",
            "{\"filename\":\"KNOWLEDGE.md\",\"scope\":\"team\"}");
    assertThat(viaTool.status()).as(viaTool.body()).isEqualTo(200);
    assertThat(viaTool.json().get("content")).isEqualTo(read.json().get("content"));
  }

  @Test
  void theJobRoutesAnswerAtTheAgentPathAndAtTheAlias() {
    for (String base : new String[] {"/api/v1/agents/a1/memory", "/api/v1/memory/a1"}) {
      assertNoModel(client.post(base + "/summarize/c1", "{\"ownerKey\":\"user:1\"}"));
      assertNoModel(client.post(base + "/emergence", "{}"));
      assertNoModel(client.get(base + "/dreaming/status"));
      Answer unknown = client.post(base + "/emergence", "{\"owner\":\"user:1\"}");
      assertThat(unknown.status()).as(unknown.body()).isEqualTo(400);
      assertThat(unknown.json().get("field").asString()).isEqualTo("owner");
    }
  }

  /** Without a chat model the builtin tools answer 409: the route reached the provider. */
  private static void assertNoModel(Answer answer) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(409);
    assertThat(answer.json().get("message").asString()).isEqualTo("no chat model configured");
  }
}
