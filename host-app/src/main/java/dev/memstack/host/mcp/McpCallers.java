package dev.memstack.host.mcp;

import dev.memstack.host.security.AccessDeniedException;
import dev.memstack.host.security.Caller;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import java.util.HashMap;
import java.util.Map;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * Carries who sent an MCP request from the HTTP request to the tool handlers, which may run on
 * another thread: the transport's context extractor copies the {@link Caller} that the bearer token
 * filter put on the request, and the {@code agentId} query parameter of the MCP URL, into the
 * request's {@link McpTransportContext}; a handler reads them back from its exchange. A context
 * without a caller (a request that did not pass the filter) is refused.
 */
final class McpCallers {

  static final String CALLER = Caller.ATTRIBUTE;
  static final String AGENT = McpCallers.class.getName() + ".agentId";

  private McpCallers() {}

  /** The context of one HTTP request to the MCP endpoint. */
  static McpTransportContext extract(ServerRequest request) {
    Map<String, Object> values = new HashMap<>();
    request.attribute(Caller.ATTRIBUTE).ifPresent(caller -> values.put(CALLER, caller));
    request.param("agentId").ifPresent(agent -> values.put(AGENT, agent));
    return McpTransportContext.create(values);
  }

  /**
   * The caller of the request that carried this tool call.
   *
   * @throws AccessDeniedException when the request carried none
   */
  static Caller caller(McpSyncServerExchange exchange) {
    if (exchange.transportContext().get(CALLER) instanceof Caller caller) {
      return caller;
    }
    throw new AccessDeniedException("this MCP request carries no authenticated caller");
  }

  /** The {@code agentId} of the MCP URL, or {@code fallback} when it has none. */
  static String agent(McpSyncServerExchange exchange, String fallback) {
    return exchange.transportContext().get(AGENT) instanceof String agent ? agent : fallback;
  }
}
