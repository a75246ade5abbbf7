package dev.memstack.host.mcp;

import dev.memstack.host.api.BadRequestException;
import dev.memstack.host.api.JsonBody;
import dev.memstack.host.api.MemoryRequests;
import dev.memstack.host.api.ToolInvoker;
import dev.memstack.host.api.WindowRequests;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.Caller;
import dev.memstack.host.security.OwnerBinding;
import dev.memstack.host.security.Role;
import dev.memstack.host.stack.WindowedContext;
import dev.memstack.host.window.ConversationWindows;
import dev.memstack.spi.AgentId;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.function.BiFunction;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The handlers of the MCP tools, an adapter over the same application API as the REST routes. Each
 * call runs as the caller of the HTTP request that carried it ({@link McpCallers}, {@link
 * AccessPolicy#actingAs}), so the same checks and errors apply: {@code memory_context} reads its
 * arguments as the context route reads its body ({@link MemoryRequests#context}) and asks the
 * memory stack; {@code memory_remember} and every provider tool go to the tool service ({@link
 * ToolInvoker}). Every call needs the {@code viewer} role; the owner and write checks follow as for
 * REST.
 *
 * <p>The owner: a token bound to one owner acts for that owner, and an {@code ownerKey} argument
 * may only repeat it (the routes' owner check refuses any other); a token bound to a prefix ({@code
 * api:*}) or to no owner names the owner in {@code ownerKey}, checked against its binding. The
 * answer is the route's JSON, as text and as structured content; a failure is a result with {@code
 * isError} ({@link McpToolErrors}).
 *
 * @param access the access rules, which every call runs under as its caller
 * @param contexts the memory stack behind {@code memory_context}, with the conversation window when
 *     asked
 * @param windows the conversation windows behind {@code memory_window}
 * @param tools the tool service behind {@code memory_remember} and the provider tools
 * @param json the mapper of the arguments and answers
 * @param errors turns a failure into a result with {@code isError}
 * @param properties which provider tool {@code memory_remember} calls
 */
record McpToolCalls(
    AccessPolicy access,
    WindowedContext contexts,
    ConversationWindows windows,
    ToolInvoker tools,
    JsonMapper json,
    McpToolErrors errors,
    McpProperties properties) {

  /** The owner argument every MCP tool takes. */
  static final String OWNER_KEY = "ownerKey";

  /**
   * Whether {@code memory_remember} calls tool {@code tool} of provider instance {@code provider}.
   */
  boolean remembersWith(String provider, String tool) {
    return provider.equals(properties.rememberProvider()) && tool.equals(properties.rememberTool());
  }

  /** {@code memory_context}: the stacked recall for a query, as the context route answers it. */
  CallToolResult context(McpSyncServerExchange exchange, CallToolRequest request) {
    return run(
        exchange,
        request,
        (agent, arguments) ->
            json.valueToTree(contexts.context(MemoryRequests.context(agent, arguments, access))));
  }

  /** {@code memory_window}: the conversation window, as the window route answers it. */
  CallToolResult window(McpSyncServerExchange exchange, CallToolRequest request) {
    return run(
        exchange,
        request,
        (agent, arguments) ->
            json.valueToTree(WindowRequests.window(windows, agent, arguments, access)));
  }

  /** {@code memory_remember}: stores one personal memory through the configured provider tool. */
  CallToolResult remember(McpSyncServerExchange exchange, CallToolRequest request) {
    return run(
        exchange,
        request,
        (agent, arguments) -> {
          if (!arguments.hasNonNull(OWNER_KEY)) {
            throw new BadRequestException(
                OWNER_KEY,
                "memory_remember stores personal memory: give an ownerKey, or call with a token"
                    + " bound to one owner");
          }
          return tools.call(
              agent, properties.rememberProvider(), properties.rememberTool(), null, arguments);
        });
  }

  /** One provider tool. */
  CallToolResult provider(
      String providerId, String tool, McpSyncServerExchange exchange, CallToolRequest request) {
    return run(
        exchange,
        request,
        (agent, arguments) -> tools.call(agent, providerId, tool, null, arguments));
  }

  private CallToolResult run(
      McpSyncServerExchange exchange,
      CallToolRequest request,
      BiFunction<AgentId, ObjectNode, JsonNode> route) {
    try {
      Caller caller = McpCallers.caller(exchange);
      String agentId = McpCallers.agent(exchange, properties.agentId());
      ObjectNode arguments = arguments(request, caller);
      JsonNode answer =
          access.actingAs(
              caller,
              () -> {
                access.requireRole(Role.VIEWER);
                return route.apply(JsonBody.agent(agentId), arguments);
              });
      return success(answer);
    } catch (RuntimeException e) {
      return errors.result(e);
    }
  }

  /** The call's arguments, with the owner of a token bound to one owner when none is given. */
  private ObjectNode arguments(CallToolRequest request, Caller caller) {
    Map<String, Object> given = request.arguments();
    ObjectNode arguments =
        given == null ? json.createObjectNode() : (ObjectNode) json.valueToTree(given);
    OwnerBinding binding = caller.owner();
    if (!arguments.hasNonNull(OWNER_KEY) && binding != null && !binding.isPrefix()) {
      arguments.put(OWNER_KEY, binding.pattern());
    }
    return arguments;
  }

  private CallToolResult success(JsonNode answer) {
    CallToolResult.Builder result =
        CallToolResult.builder().addTextContent(json.writeValueAsString(answer));
    if (answer != null && answer.isObject()) {
      result.structuredContent(json.convertValue(answer, Map.class));
    }
    return result.build();
  }
}
