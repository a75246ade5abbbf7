package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.api.CapabilityRoutesClient.Answer;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Without a running provider that claims the capability, the workspace routes answer 503 and the
 * memory-job routes 404, each with a JSON body naming the missing capability; the instance a
 * setting names is named as well.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(CapabilityRoutesClient.TestEmbedder.class)
class MissingCapabilityApiTest {

  private static Path temp;

  @LocalServerPort int port;

  private CapabilityRoutesClient client;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    temp = CapabilityRoutesClient.withoutBuiltin(registry, "memstack-missing-capability-test");
    registry.add("memstack.api.workspace-provider", () -> "vector");
  }

  @AfterAll
  static void cleanUp() throws InterruptedException {
    TestDirs.deleteQuietly(temp);
  }

  @BeforeEach
  void client() {
    client = new CapabilityRoutesClient(port);
  }

  @Test
  void theWorkspaceRoutesAnswer503NamingTheCapabilityAndTheInstance() {
    Answer list = client.get("/api/v1/agents/a1/workspace/files");
    assertThat(list.status()).as(list.body()).isEqualTo(503);
    assertThat(list.json().get("error").asString()).isEqualTo("unavailable");
    assertThat(list.message())
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
        assertThat(answer.message())
            .isEqualTo("no running provider claims the capability MEMORY_JOBS");
      }
    }
  }
}
