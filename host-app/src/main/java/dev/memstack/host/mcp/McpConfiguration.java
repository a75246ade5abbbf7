package dev.memstack.host.mcp;

import dev.memstack.host.api.ApiExceptionHandler;
import dev.memstack.host.api.ToolInvoker;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.stack.WindowedContext;
import dev.memstack.host.window.ConversationWindows;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpSyncServer;
import org.springframework.ai.mcp.server.common.autoconfigure.properties.McpServerStreamableHttpProperties;
import org.springframework.ai.mcp.server.webmvc.transport.WebMvcStreamableServerTransportProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/**
 * The host's MCP server: Spring AI's MCP server auto-configuration serves streamable HTTP at {@code
 * /mcp} ({@code spring.ai.mcp.server.protocol=STREAMABLE} in {@code application.yml}); this
 * configuration gives it the transport whose context carries each request's caller ({@link
 * McpCallers}) and fills it with the memory tools ({@link McpToolCatalog}). The bearer token filter
 * guards {@code /mcp} as every other path. Off with {@code memstack.mcp.enabled=false}, which also
 * switches Spring AI's MCP server off.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(McpProperties.class)
@ConditionalOnProperty(
    prefix = "memstack.mcp",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
public class McpConfiguration {

  /** Replaces the auto-configured transport: the same settings, plus the caller's context. */
  @Bean
  WebMvcStreamableServerTransportProvider webMvcStreamableServerTransportProvider(
      @Qualifier("mcpServerJsonMapper") JsonMapper mcpServerJsonMapper,
      McpServerStreamableHttpProperties transport) {
    return WebMvcStreamableServerTransportProvider.builder()
        .jsonMapper(new JacksonMcpJsonMapper(mcpServerJsonMapper))
        .mcpEndpoint(transport.getMcpEndpoint())
        .keepAliveInterval(transport.getKeepAliveInterval())
        .disallowDelete(transport.isDisallowDelete())
        .contextExtractor(McpCallers::extract)
        .build();
  }

  @Bean
  McpToolCalls mcpToolCalls(
      AccessPolicy access,
      WindowedContext contexts,
      ConversationWindows windows,
      ToolInvoker tools,
      JsonMapper json,
      ApiExceptionHandler errors,
      McpProperties properties) {
    return new McpToolCalls(
        access, contexts, windows, tools, json, new McpToolErrors(errors), properties);
  }

  @Bean(initMethod = "start", destroyMethod = "close")
  McpToolCatalog mcpToolCatalog(McpSyncServer server, StackMembers members, McpToolCalls handlers) {
    return new McpToolCatalog(server, members, handlers);
  }
}
