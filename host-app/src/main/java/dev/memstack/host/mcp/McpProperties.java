package dev.memstack.host.mcp;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.ToolSpec;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The MCP server of the host ({@code memstack.mcp.*}). A wrong value stops the host at start with a
 * message that names the key.
 *
 * @param enabled Whether the host serves MCP (streamable HTTP) at '/mcp'; false turns Spring AI's
 *     MCP server off as well.
 * @param agentId The agent an MCP call acts for when the client's URL gives none ('/mcp?agentId=a1'
 *     names one).
 * @param rememberProvider The provider instance whose tool 'memory_remember' calls.
 * @param rememberTool The tool of that provider that stores one memory from a 'text' argument.
 */
@ConfigurationProperties("memstack.mcp")
public record McpProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("mcp") String agentId,
    @DefaultValue("vector") String rememberProvider,
    @DefaultValue("remember") String rememberTool) {

  public McpProperties {
    try {
      AgentId.of(agentId);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException("memstack.mcp.agent-id: " + e.getMessage());
    }
    if (rememberProvider == null || !rememberProvider.matches("[A-Za-z0-9_-]{1,64}")) {
      throw new IllegalArgumentException(
          "memstack.mcp.remember-provider must be a provider instance id ([A-Za-z0-9_-]{1,64}),"
              + " got: "
              + rememberProvider);
    }
    try {
      new ToolSpec(rememberTool, "", "{}");
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException("memstack.mcp.remember-tool: " + e.getMessage());
    }
  }

  /** Every setting at its default. */
  public static McpProperties defaults() {
    return new McpProperties(true, "mcp", "vector", "remember");
  }
}
