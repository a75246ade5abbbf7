package dev.memstack.host.mcp;

import dev.memstack.host.api.WindowRequests;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.ToolSpec;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.ToolAnnotations;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The MCP definitions of the tools: name, description, input schema and hints. A provider tool's
 * schema is its own JSON Schema; every tool's schema gains the {@code ownerKey} argument ({@link
 * McpToolCalls}). The hints come from the declared effect ({@link #hints}).
 */
final class McpToolDefinitions {

  private static final Logger log = LoggerFactory.getLogger(McpToolDefinitions.class);

  private static final String OWNER_DESCRIPTION =
      "The end user the call is for (an owner key such as api:42). Leave it out with a token bound"
          + " to one owner: the token names the owner.";

  private final McpProperties properties;
  private final JsonMapper json;

  McpToolDefinitions(McpProperties properties, JsonMapper json) {
    this.properties = properties;
    this.json = json;
  }

  /** Tool {@code spec} of {@code provider}, exposed as {@code name}. */
  McpSchema.Tool provider(String name, String provider, ToolSpec spec) {
    return McpSchema.Tool.builder(name, withOwner(schema(spec)))
        .description(spec.description() + " (provider " + provider + ")")
        .annotations(hints(spec.effect()))
        .build();
  }

  /** {@code memory_remember}, with the hints of the provider tool it calls. */
  McpSchema.Tool remember(ToolSpec.Effect effect) {
    Map<String, Object> schema =
        closedObject(
            Map.of("text", property("string", "the memory, one statement about the user")), "text");
    return hostTool(
        McpToolCatalog.MEMORY_REMEMBER,
        schema,
        "Remember",
        "Store one memory (a fact, preference or decision) in the user's personal long-term"
            + " memory, so that later conversations recall it (provider tool "
            + properties.rememberProvider()
            + "/"
            + properties.rememberTool()
            + ").",
        effect);
  }

  /** {@code memory_context}. */
  McpSchema.Tool context() {
    Map<String, Object> arguments = new LinkedHashMap<>();
    arguments.put("query", property("string", "the user's message, or what to recall for"));
    arguments.put(
        "conversationId", property("string", "the conversation, when the client knows it"));
    arguments.put(
        "limit",
        integer(
            1, RecallRequest.MAX_LIMIT, "most recalled items (the host's default when left out)"));
    arguments.put(
        "window",
        property(
            "boolean", "true adds the conversation window to send next (needs conversationId)"));
    arguments.put(
        "morningCard",
        property(
            "boolean",
            "true adds the user's morning card (what dreaming concluded yesterday) to their first"
                + " such call of the day"));
    return hostTool(
        McpToolCatalog.MEMORY_CONTEXT,
        closedObject(arguments, "query"),
        "Recall memory",
        "Recall what memory holds for a query: the agent's shared system prompt, the user's own"
            + " standing memory (ownerPrompt) and the recalled items, best first, with the"
            + " fenced <memory-context> block to put in front of the user's message. The same"
            + " answer as the REST context call.",
        ToolSpec.Effect.READ);
  }

  /** {@code memory_window}. */
  McpSchema.Tool window() {
    Map<String, Object> arguments = new LinkedHashMap<>();
    arguments.put("conversationId", property("string", "the conversation"));
    arguments.put(
        "maxInputTokens",
        integer(
            WindowRequests.MIN_MAX_INPUT_TOKENS,
            WindowRequests.MAX_MAX_INPUT_TOKENS,
            "the token budget (memstack.window.default-max-input-tokens when left out)"));
    return hostTool(
        McpToolCatalog.MEMORY_WINDOW,
        closedObject(arguments, "conversationId"),
        "Conversation window",
        "The conversation window to send the model next: a summary of the older turns (a user"
            + " message marked as reference, not instructions) and the recent turns verbatim,"
            + " within the token budget, with the tokens of each part. The same answer as the"
            + " REST window route.",
        ToolSpec.Effect.READ);
  }

  /** A tool of the host itself: its schema with {@code ownerKey}, a title and its hints. */
  private static McpSchema.Tool hostTool(
      String name,
      Map<String, Object> schema,
      String title,
      String description,
      ToolSpec.Effect effect) {
    return McpSchema.Tool.builder(name, withOwner(schema))
        .title(title)
        .description(description)
        .annotations(hints(effect))
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

  /** The schema of an argument of JSON type {@code type}. */
  private static Map<String, Object> property(String type, String description) {
    return Map.of("type", type, "description", description);
  }

  /** The schema of an integer argument from {@code minimum} to {@code maximum}. */
  private static Map<String, Object> integer(int minimum, int maximum, String description) {
    return Map.of(
        "type", "integer", "minimum", minimum, "maximum", maximum, "description", description);
  }

  /** The schema of an object with these arguments, {@code required} among them, and no others. */
  private static Map<String, Object> closedObject(Map<String, Object> arguments, String required) {
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("type", "object");
    schema.put("properties", arguments);
    schema.put("required", List.of(required));
    schema.put("additionalProperties", false);
    return schema;
  }

  /** {@code schema} with the {@code ownerKey} argument. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> withOwner(Map<String, Object> schema) {
    Map<String, Object> arguments =
        schema.get("properties") instanceof Map<?, ?> given
            ? new LinkedHashMap<>((Map<String, Object>) given)
            : new LinkedHashMap<>();
    arguments.put(McpToolCalls.OWNER_KEY, property("string", OWNER_DESCRIPTION));
    Map<String, Object> result = new LinkedHashMap<>(schema);
    result.put("properties", arguments);
    return result;
  }
}
