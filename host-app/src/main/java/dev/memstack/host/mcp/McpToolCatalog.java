package dev.memstack.host.mcp;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.ToolSpec;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ToolAnnotations;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Keeps the MCP server's tools in step with the stack: {@code memory_context} always; {@code
 * memory_remember} while the provider tool it calls ({@code memstack.mcp.remember-provider} and
 * {@code remember-tool}) is offered; and every tool of every running provider under a name of
 * {@link McpToolNames}, kept in a table of (provider, tool) so a call finds its tool without
 * parsing the name, and a tool keeps its name while it exists. {@link #sync} runs at start and
 * after every change of the members (a plugin stopped, started or reloaded): gone tools are
 * removed, new or changed ones added ({@link McpSyncServer#removeTool}, {@link
 * McpSyncServer#addTool}, each of which notifies the clients that the list changed). Each tool's
 * hints come from its declared effect ({@link #hints}); its input schema gains the {@code ownerKey}
 * argument.
 */
final class McpToolCatalog implements AutoCloseable {

  static final String MEMORY_CONTEXT = "memory_context";
  static final String MEMORY_REMEMBER = "memory_remember";

  private static final Logger log = LoggerFactory.getLogger(McpToolCatalog.class);

  private static final String OWNER_DESCRIPTION =
      "The end user the call is for (an owner key such as api:42). Leave it out with a token bound"
          + " to one owner: the token names the owner.";

  /** A provider's tool. */
  private record ToolKey(String provider, String tool) {}

  private final McpSyncServer server;
  private final StackMembers members;
  private final ProviderCalls calls;
  private final McpToolCalls handlers;
  private final McpProperties properties;
  private final JsonMapper json;

  /** The exposed provider tools; guarded by {@code this}. */
  private final Map<ToolKey, McpSchema.Tool> exposed = new LinkedHashMap<>();

  /** The exposed {@code memory_remember}, or {@code null}; guarded by {@code this}. */
  private McpSchema.Tool remember;

  private volatile boolean closed;

  McpToolCatalog(
      McpSyncServer server,
      StackMembers members,
      ProviderCalls calls,
      McpToolCalls handlers,
      McpProperties properties,
      JsonMapper json) {
    this.server = server;
    this.members = members;
    this.calls = calls;
    this.handlers = handlers;
    this.properties = properties;
    this.json = json;
  }

  /** Adds {@code memory_context}, then the tools of the running providers, and follows changes. */
  void start() {
    server.addTool(
        SyncToolSpecification.builder().tool(contextTool()).callHandler(handlers::context).build());
    members.onChange(this::sync);
    sync();
  }

  /** Brings the server's tools in line with the running providers. */
  synchronized void sync() {
    if (closed) {
      return;
    }
    Map<ToolKey, Listed> wanted = listed();
    for (var it = exposed.entrySet().iterator(); it.hasNext(); ) {
      var entry = it.next();
      if (!wanted.containsKey(entry.getKey())) {
        server.removeTool(entry.getValue().name());
        it.remove();
      }
    }
    Set<String> taken = new HashSet<>(Set.of(MEMORY_CONTEXT, MEMORY_REMEMBER));
    exposed.values().forEach(tool -> taken.add(tool.name()));
    wanted.forEach(
        (key, listed) -> {
          McpSchema.Tool current = exposed.get(key);
          String name =
              current != null
                  ? current.name()
                  : McpToolNames.name(key.provider(), key.tool(), taken);
          McpSchema.Tool tool =
              tool(
                  name,
                  listed.spec(),
                  listed.spec().description() + " (provider " + key.provider() + ")");
          if (tool.equals(current)) {
            return;
          }
          if (add(
              tool,
              (exchange, request) ->
                  handlers.provider(key.provider(), key.tool(), exchange, request))) {
            exposed.put(key, tool);
            taken.add(name);
          }
        });
    syncRemember(wanted.get(new ToolKey(properties.rememberProvider(), properties.rememberTool())));
  }

  private void syncRemember(Listed target) {
    McpSchema.Tool next = target == null ? null : rememberTool(target.spec().effect());
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

  /** A provider's tool as listed. */
  private record Listed(StackMember member, ToolSpec spec) {}

  /** The tools of the running providers, in stack order. */
  private Map<ToolKey, Listed> listed() {
    Map<ToolKey, Listed> listed = new LinkedHashMap<>();
    for (StackMember member : members.enabled()) {
      List<ToolSpec> specs;
      try {
        specs = calls.call(member, ProviderCalls.TOOLS, () -> member.provider().tools());
      } catch (RuntimeException e) {
        log.warn("Provider {} could not list its tools for MCP: {}", member.id(), e.toString());
        continue;
      }
      for (ToolSpec spec : specs == null ? List.<ToolSpec>of() : specs) {
        listed.putIfAbsent(new ToolKey(member.id(), spec.name()), new Listed(member, spec));
      }
    }
    return listed;
  }

  private McpSchema.Tool tool(String name, ToolSpec spec, String description) {
    return McpSchema.Tool.builder(name, withOwner(schema(spec)))
        .description(description)
        .annotations(hints(spec.effect()))
        .build();
  }

  private McpSchema.Tool rememberTool(ToolSpec.Effect effect) {
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("type", "object");
    schema.put(
        "properties",
        Map.of(
            "text",
            Map.of("type", "string", "description", "the memory, one statement about the user")));
    schema.put("required", List.of("text"));
    schema.put("additionalProperties", false);
    return McpSchema.Tool.builder(MEMORY_REMEMBER, withOwner(schema))
        .title("Remember")
        .description(
            "Store one memory (a fact, preference or decision) in the user's personal long-term"
                + " memory, so that later conversations recall it (provider tool "
                + properties.rememberProvider()
                + "/"
                + properties.rememberTool()
                + ").")
        .annotations(hints(effect))
        .build();
  }

  private static McpSchema.Tool contextTool() {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put(
        "query",
        Map.of("type", "string", "description", "the user's message, or what to recall for"));
    properties.put(
        "conversationId",
        Map.of("type", "string", "description", "the conversation, when the client knows it"));
    properties.put(
        "limit",
        Map.of(
            "type",
            "integer",
            "minimum",
            1,
            "maximum",
            RecallRequest.MAX_LIMIT,
            "description",
            "most recalled items (the host's default when left out)"));
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("type", "object");
    schema.put("properties", properties);
    schema.put("required", List.of("query"));
    schema.put("additionalProperties", false);
    return McpSchema.Tool.builder(MEMORY_CONTEXT, withOwner(schema))
        .title("Recall memory")
        .description(
            "Recall what memory holds for a query: the agent's shared system prompt, the user's own"
                + " standing memory (ownerPrompt) and the recalled items, best first, with the"
                + " fenced <memory-context> block to put in front of the user's message. The same"
                + " answer as the REST context call.")
        .annotations(hints(ToolSpec.Effect.READ))
        .build();
  }

  /**
   * The hints of a tool of this effect. MCP's defaults are "not read-only" and "destructive", so
   * both hints are always given: a write is neither read-only nor destructive, an undeclared effect
   * counts as destructive (as the host treats it).
   */
  static ToolAnnotations hints(ToolSpec.Effect effect) {
    boolean read = effect == ToolSpec.Effect.READ;
    boolean destructive =
        effect == ToolSpec.Effect.DESTRUCTIVE || effect == ToolSpec.Effect.UNDECLARED;
    return ToolAnnotations.builder().readOnlyHint(read).destructiveHint(destructive).build();
  }

  /** The tool's JSON schema as a map; an invalid one is an open object (as on the REST list). */
  @SuppressWarnings("unchecked")
  private Map<String, Object> schema(ToolSpec spec) {
    try {
      Object parsed = json.readValue(spec.inputSchema(), Object.class);
      if (parsed instanceof Map<?, ?> map) {
        return new LinkedHashMap<>((Map<String, Object>) map);
      }
    } catch (JacksonException e) {
      // answered below
    }
    log.warn("Tool {} has an invalid JSON schema; MCP shows it as an open object", spec.name());
    Map<String, Object> open = new LinkedHashMap<>();
    open.put("type", "object");
    return open;
  }

  /** {@code schema} with the {@code ownerKey} argument. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> withOwner(Map<String, Object> schema) {
    Map<String, Object> properties =
        schema.get("properties") instanceof Map<?, ?> given
            ? new LinkedHashMap<>((Map<String, Object>) given)
            : new LinkedHashMap<>();
    properties.put(
        McpToolCalls.OWNER_KEY, Map.of("type", "string", "description", OWNER_DESCRIPTION));
    Map<String, Object> result = new LinkedHashMap<>(schema);
    result.put("properties", properties);
    return result;
  }

  @Override
  public void close() {
    closed = true;
  }
}
