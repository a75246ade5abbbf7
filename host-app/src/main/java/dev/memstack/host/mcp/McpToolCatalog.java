package dev.memstack.host.mcp;

import dev.memstack.host.api.ToolInvoker;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.spi.ToolSpec;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the MCP server's tools in step with the stack: {@code memory_context} always; {@code
 * memory_remember} while the provider tool it calls ({@code memstack.mcp.remember-provider} and
 * {@code remember-tool}) is offered; and every tool of every running provider under a name of
 * {@link McpToolNames}, kept in a table of (provider, tool) so a call finds its tool without
 * parsing the name, and a tool keeps its name while it exists. {@link #sync} runs at start and
 * after every change of the members (a plugin stopped, started or reloaded): gone tools are
 * removed, new or changed ones added ({@link McpSyncServer#removeTool}, {@link
 * McpSyncServer#addTool}, each of which notifies the clients that the list changed); the tools
 * themselves are {@link McpToolDefinitions}.
 */
final class McpToolCatalog implements AutoCloseable {

  static final String MEMORY_CONTEXT = "memory_context";

  /** The conversation window tool, always listed. */
  static final String MEMORY_WINDOW = "memory_window";

  static final String MEMORY_REMEMBER = "memory_remember";

  private static final Logger log = LoggerFactory.getLogger(McpToolCatalog.class);

  /** A provider's tool. */
  private record ToolKey(String provider, String tool) {}

  private final McpSyncServer server;
  private final StackMembers members;
  private final McpToolCalls handlers;
  private final McpToolDefinitions definitions;

  /** The exposed provider tools; guarded by {@code this}. */
  private final Map<ToolKey, McpSchema.Tool> exposed = new LinkedHashMap<>();

  /** The exposed {@code memory_remember}, or {@code null}; guarded by {@code this}. */
  private McpSchema.Tool remember;

  private volatile boolean closed;

  /** The tools are defined by the settings and mapper the handlers work with. */
  McpToolCatalog(McpSyncServer server, StackMembers members, McpToolCalls handlers) {
    this.server = server;
    this.members = members;
    this.handlers = handlers;
    this.definitions = new McpToolDefinitions(handlers.properties(), handlers.json());
  }

  /** Adds {@code memory_context}, then the tools of the running providers, and follows changes. */
  void start() {
    server.addTool(
        SyncToolSpecification.builder()
            .tool(definitions.context())
            .callHandler(handlers::context)
            .build());
    server.addTool(
        SyncToolSpecification.builder()
            .tool(definitions.window())
            .callHandler(handlers::window)
            .build());
    members.onChange(this::sync);
    sync();
  }

  /** Brings the server's tools in line with the running providers. */
  synchronized void sync() {
    if (closed) {
      return;
    }
    Map<ToolKey, ToolSpec> wanted = listed();
    for (var it = exposed.entrySet().iterator(); it.hasNext(); ) {
      var entry = it.next();
      if (!wanted.containsKey(entry.getKey())) {
        server.removeTool(entry.getValue().name());
        it.remove();
      }
    }
    Set<String> taken = new HashSet<>(Set.of(MEMORY_CONTEXT, MEMORY_WINDOW, MEMORY_REMEMBER));
    exposed.values().forEach(tool -> taken.add(tool.name()));
    wanted.forEach((key, spec) -> expose(key, spec, taken));
    syncRemember(
        wanted.entrySet().stream()
            .filter(e -> handlers.remembersWith(e.getKey().provider(), e.getKey().tool()))
            .findFirst()
            .map(e -> definitions.remember(e.getValue().effect()))
            .orElse(null));
  }

  /** Adds a provider tool, or replaces it when its definition changed; it keeps its name. */
  private void expose(ToolKey key, ToolSpec spec, Set<String> taken) {
    McpSchema.Tool current = exposed.get(key);
    String name =
        current != null ? current.name() : McpToolNames.name(key.provider(), key.tool(), taken);
    McpSchema.Tool tool = definitions.provider(name, key.provider(), spec);
    if (tool.equals(current)) {
      return;
    }
    if (add(
        tool,
        (exchange, request) -> handlers.provider(key.provider(), key.tool(), exchange, request))) {
      exposed.put(key, tool);
      taken.add(name);
    }
  }

  private void syncRemember(McpSchema.Tool next) {
    if (Objects.equals(next, remember)) {
      return;
    }
    if (next == null) {
      server.removeTool(MEMORY_REMEMBER);
      remember = null;
    } else if (add(next, handlers::remember)) {
      remember = next;
    }
  }

  /** Adds or replaces one tool; a tool the server refuses (its schema) is logged and left out. */
  private boolean add(
      McpSchema.Tool tool,
      BiFunction<McpSyncServerExchange, CallToolRequest, CallToolResult> handler) {
    try {
      server.addTool(SyncToolSpecification.builder().tool(tool).callHandler(handler).build());
      return true;
    } catch (RuntimeException e) {
      log.warn("MCP tool {} left out: {}", tool.name(), e.getMessage());
      return false;
    }
  }

  /** The tools of the running providers, in stack order. */
  private Map<ToolKey, ToolSpec> listed() {
    Map<ToolKey, ToolSpec> listed = new LinkedHashMap<>();
    // through the tool service, measured as every call
    for (ToolInvoker.Listed entry : handlers.tools().listAll(" for MCP")) {
      List<ToolSpec> specs = entry.tools() == null ? List.of() : entry.tools();
      for (ToolSpec spec : specs) {
        listed.putIfAbsent(new ToolKey(entry.member().id(), spec.name()), spec);
      }
    }
    return listed;
  }

  @Override
  public void close() {
    closed = true;
  }
}
