package dev.memstack.host.mcp;

import dev.memstack.host.security.ManagedTokens;
import org.springframework.ai.mcp.server.common.autoconfigure.properties.McpServerStreamableHttpProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import tools.jackson.databind.json.JsonMapper;

/**
 * Puts {@link McpGuardFilter} in front of the MCP endpoint: after the bearer token filter (+10),
 * which names the caller, and the body size limit (+20), which bounds what it reads.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(
    prefix = "memstack.mcp",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
public class McpGuardConfiguration {

  /** The sessions' tokens; a managed token's revocation ends its sessions. */
  @Bean
  McpSessionOwners mcpSessionOwners(ObjectProvider<ManagedTokens> managed) {
    McpSessionOwners sessions = new McpSessionOwners();
    managed.ifAvailable(tokens -> tokens.onRevoked(sessions::revoked));
    return sessions;
  }

  @Bean
  FilterRegistrationBean<McpGuardFilter> mcpGuardFilter(
      McpSessionOwners sessions, JsonMapper json, McpServerStreamableHttpProperties transport) {
    FilterRegistrationBean<McpGuardFilter> registration =
        new FilterRegistrationBean<>(new McpGuardFilter(sessions, json));
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 30);
    registration.addUrlPatterns(transport.getMcpEndpoint());
    return registration;
  }
}
