package dev.memstack.host.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import io.modelcontextprotocol.server.McpSyncServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;

/** {@code memstack.mcp.enabled=false}: no MCP server, and {@code /mcp} is an unknown route. */
@HostTest
class McpDisabledTest {

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.fixtureOnly("mcp-off").with("memstack.mcp.enabled", "false").adminToken();

  @Autowired HostClient api;

  @Autowired ApplicationContext context;

  @Test
  void theHostRunsWithoutAnMcpServer() throws Exception {
    assertThat(context.getBeanNamesForType(McpSyncServer.class)).isEmpty();
    assertThat(context.getBeanNamesForType(McpToolCatalog.class)).isEmpty();
    Answer answer = api.mcp("{}").expect(404);
  }
}
