package dev.memstack.host.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.plugin.fixture.FixturePlugin;
import dev.memstack.host.security.TestTokens;
import dev.memstack.spi.Embedder;
import dev.memstack.tck.HashingEmbedder;
import io.modelcontextprotocol.server.McpSyncServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;

/** {@code memstack.mcp.enabled=false}: no MCP server, and {@code /mcp} is an unknown route. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class McpDisabledTest {

  private static final Path TEMP = temp();

  @LocalServerPort int port;

  @Autowired ApplicationContext context;

  private static Path temp() {
    try {
      return Files.createTempDirectory("memstack-mcp-off-test");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    Path plugins = TEMP.resolve("plugins");
    FixturePlugin.build(plugins, ">=0.1.0");
    registry.add("memstack.plugins.dir", plugins::toString);
    registry.add("memstack.data-dir", () -> TEMP.resolve("data").toString());
    registry.add("memstack.providers.builtin.enabled", () -> "false");
    registry.add("memstack.providers.vector.enabled", () -> "false");
    registry.add("memstack.providers.fixture.type", () -> "fixture");
    registry.add("memstack.models.onnx.warm-up", () -> "false");
    registry.add("memstack.mcp.enabled", () -> "false");
    TestTokens.admin(registry);
  }

  @AfterAll
  static void cleanUp() throws IOException {
    FileSystemUtils.deleteRecursively(TEMP);
  }

  @TestConfiguration
  static class TestEmbedder {
    @Bean
    @Primary
    Embedder testEmbedder() {
      return new HashingEmbedder();
    }
  }

  @Test
  void theHostRunsWithoutAnMcpServer() throws Exception {
    assertThat(context.getBeanNamesForType(McpSyncServer.class)).isEmpty();
    assertThat(context.getBeanNamesForType(McpToolCatalog.class)).isEmpty();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
            .header("Authorization", TestTokens.bearer(TestTokens.ADMIN))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString("{}"))
            .build();
    HttpResponse<String> answer =
        HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).isEqualTo(404);
  }
}
