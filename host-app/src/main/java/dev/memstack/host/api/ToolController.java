package dev.memstack.host.api;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolSpec;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Provider tools for agents: {@code GET .../tools} lists every running provider's tools with their
 * JSON schemas; {@code POST .../tools/{providerId}/{tool}} calls one with a JSON object of
 * arguments. The owner the call acts for is {@code ownerKey} in the body (removed from the
 * arguments) or the {@code ownerKey} query parameter; without one the tool sees shared memory only.
 * The provider's {@code ToolException} kinds map to 400, 404, 409, 403 and 503.
 *
 * <p>Listing needs {@code viewer}; a call needs {@code viewer} for a read tool and {@code member}
 * for any other ({@link dev.memstack.host.security.ToolVerbs}), and an owner the token covers. A
 * token bound to owners writes only their personal memory: its write calls need an owner, a {@code
 * scope} other than {@code personal} is refused, and a tool whose schema takes a {@code scope} gets
 * {@code "scope": "personal"} when the call gives none.
 */
@RestController
@RequestMapping(
    path = "/api/v1/agents/{agentId}/tools",
    produces = MediaType.APPLICATION_JSON_VALUE)
public class ToolController {

  private static final Logger log = LoggerFactory.getLogger(ToolController.class);

  private final StackMembers members;
  private final ProviderCalls calls;
  private final JsonMapper json;
  private final AccessPolicy access;

  public ToolController(
      StackMembers members, ProviderCalls calls, JsonMapper json, AccessPolicy access) {
    this.members = members;
    this.calls = calls;
    this.json = json;
    this.access = access;
  }

  /** The list answer. */
  public record Tools(List<ToolView> tools) {}

  /** One tool of one provider; {@code inputSchema} is the parsed JSON Schema. */
  public record ToolView(String provider, String name, String description, JsonNode inputSchema) {}

  @Operation(summary = "Every running provider's tools with their JSON schemas")
  @RequiresRole(Role.VIEWER)
  @GetMapping
  public Tools tools(@PathVariable("agentId") String agentId) {
    MemoryController.agent(agentId);
    List<ToolView> views = new ArrayList<>();
    for (StackMember member : members.enabled()) {
      List<ToolSpec> specs;
      try {
        specs = calls.call(member, ProviderCalls.TOOLS, () -> member.provider().tools());
      } catch (RuntimeException e) {
        log.warn("Provider {} could not list its tools: {}", member.id(), e.toString());
        continue;
      }
      for (ToolSpec spec : specs) {
        views.add(new ToolView(member.id(), spec.name(), spec.description(), schema(member, spec)));
      }
    }
    return new Tools(views);
  }

  @Operation(summary = "Call one provider tool")
  @io.swagger.v3.oas.annotations.parameters.RequestBody(
      content = @Content(schema = @Schema(implementation = ApiRequests.ToolArguments.class)))
  @RequiresRole(Role.VIEWER)
  @PostMapping(path = "/{providerId}/{tool}")
  public JsonNode call(
      @PathVariable("agentId") String agentId,
      @PathVariable("providerId") String providerId,
      @PathVariable("tool") String tool,
      @RequestParam(name = "ownerKey", required = false) String ownerParam,
      @RequestBody(required = false) JsonNode body) {
    AgentId agent = MemoryController.agent(agentId);
    StackMember member =
        members
            .find(providerId)
            .orElseThrow(
                () -> new NotFoundException("no running provider with id '" + providerId + "'"));
    ObjectNode arguments;
    if (body == null || body.isNull() || body.isMissingNode()) {
      arguments = json.createObjectNode();
    } else if (body.isObject()) {
      arguments = ((ObjectNode) body).deepCopy();
    } else {
      throw new BadRequestException("body", "the request body must be a JSON object");
    }
    OwnerKey owner = owner(arguments, ownerParam);
    JsonNode scopeArgument = arguments.get("scope");
    AccessPolicy.ToolScope allowed =
        access.requireToolCall(
            tool,
            owner,
            scopeArgument == null || scopeArgument.isNull()
                ? null
                : scopeArgument.isString()
                    ? scopeArgument.stringValue()
                    : scopeArgument.toString());
    List<ToolSpec> specs = calls.call(member, ProviderCalls.TOOLS, () -> member.provider().tools());
    ToolSpec spec =
        specs.stream()
            .filter(s -> s.name().equals(tool))
            .findFirst()
            .orElseThrow(
                () ->
                    new NotFoundException(
                        "provider '" + providerId + "' has no tool '" + tool + "'"));
    if (allowed == AccessPolicy.ToolScope.PERSONAL_ONLY
        && (scopeArgument == null || scopeArgument.isNull())
        && takesScope(member, spec)) {
      arguments.put("scope", "personal");
    }
    ToolCall call = new ToolCall(agent, owner, tool, json.writeValueAsString(arguments));
    String answer = calls.call(member, ProviderCalls.TOOL, () -> member.provider().callTool(call));
    try {
      return json.readTree(answer == null ? "null" : answer);
    } catch (JacksonException e) {
      throw new ProviderFailedException(
          "provider '" + providerId + "' answered tool '" + tool + "' with invalid JSON", e);
    }
  }

  private OwnerKey owner(ObjectNode arguments, String ownerParam) {
    JsonNode inBody = arguments.remove("ownerKey");
    String fromBody = null;
    if (inBody != null && !inBody.isNull()) {
      if (!inBody.isString()) {
        throw new BadRequestException("ownerKey", "ownerKey must be a string");
      }
      fromBody = inBody.stringValue();
    }
    if (fromBody != null && ownerParam != null && !fromBody.equals(ownerParam)) {
      throw new BadRequestException(
          "ownerKey", "ownerKey in the body and in the query differ; give it once");
    }
    String key = fromBody != null ? fromBody : ownerParam;
    return key == null ? null : JsonBody.parse("ownerKey", () -> OwnerKey.of(key));
  }

  /** Whether the tool's JSON schema declares a {@code scope} argument. */
  private boolean takesScope(StackMember member, ToolSpec spec) {
    JsonNode properties = schema(member, spec).get("properties");
    return properties != null && properties.isObject() && properties.has("scope");
  }

  private JsonNode schema(StackMember member, ToolSpec spec) {
    try {
      return json.readTree(spec.inputSchema());
    } catch (JacksonException e) {
      log.warn(
          "Provider {} tool {} has an invalid JSON schema: {}",
          member.id(),
          spec.name(),
          e.getOriginalMessage());
      return json.createObjectNode().put("type", "object");
    }
  }
}
