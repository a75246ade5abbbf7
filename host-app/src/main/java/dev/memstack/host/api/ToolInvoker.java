package dev.memstack.host.api;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolSpec;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The host's tool service: calls provider tools for the REST routes ({@link ToolController}, {@link
 * WorkspaceController}, the memory-job routes) and the MCP tools, with one rule for who may: the
 * tool's declared {@link ToolSpec.Effect} decides the role ({@link AccessPolicy#requireToolCall}),
 * the call carries what the caller may change ({@link ToolCall#writable()}) so the provider refuses
 * a change to a record outside it, and a token bound to owners gets {@code "scope": "personal"}
 * filled in for a write tool whose schema takes a scope. Thread-safe.
 */
public class ToolInvoker {

  private static final Logger log = LoggerFactory.getLogger(ToolInvoker.class);

  private final StackMembers members;
  private final ProviderCalls calls;
  private final JsonMapper json;
  private final AccessPolicy access;

  public ToolInvoker(
      StackMembers members, ProviderCalls calls, JsonMapper json, AccessPolicy access) {
    this.members = members;
    this.calls = calls;
    this.json = json;
    this.access = access;
  }

  /**
   * Calls tool {@code tool} of the running provider {@code providerId} for the owner of the
   * arguments' {@code ownerKey} (taken out before the tool sees them) or of {@code ownerParam}
   * (given both ways, the two must agree); without either, the tool sees shared memory only.
   *
   * @param body the arguments, a JSON object; {@code null} or JSON null mean {@code {}}; not
   *     changed
   * @throws NotFoundException when there is no such running provider or tool
   * @throws BadRequestException when the body is not an object or the owner is invalid
   */
  public JsonNode call(
      AgentId agent, String providerId, String tool, String ownerParam, JsonNode body) {
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
    OwnerKey owner = JsonBody.owner(arguments.remove("ownerKey"), ownerParam);
    ToolSpec spec =
        find(member, tool)
            .orElseThrow(
                () ->
                    new NotFoundException(
                        "provider '" + providerId + "' has no tool '" + tool + "'"));
    return call(member, spec, agent, owner, arguments);
  }

  /** The member's tools, as it lists them now. */
  public List<ToolSpec> tools(StackMember member) {
    return calls.call(member, ProviderCalls.TOOLS, () -> member.provider().tools());
  }

  /** The member's tool named {@code tool}, if it has one. */
  public Optional<ToolSpec> find(StackMember member, String tool) {
    return tools(member).stream().filter(s -> s.name().equals(tool)).findFirst();
  }

  /**
   * Checks the caller's right to call {@code spec} for {@code owner} with these arguments, then
   * calls it and returns its JSON answer ({@code null} answers are JSON null).
   *
   * @param arguments the arguments, without {@code ownerKey}; {@code scope} may be filled in
   * @throws dev.memstack.host.security.AccessDeniedException when the caller may not
   * @throws ProviderFailedException when the answer is not JSON
   */
  public JsonNode call(
      StackMember member, ToolSpec spec, AgentId agent, OwnerKey owner, ObjectNode arguments) {
    JsonNode scope = arguments.get("scope");
    boolean noScope = scope == null || scope.isNull();
    AccessPolicy.ToolAccess allowed =
        access.requireToolCall(
            spec,
            owner,
            noScope ? null : scope.isString() ? scope.stringValue() : scope.toString());
    if (allowed.personalOnly() && noScope && takesScope(member, spec)) {
      arguments.put("scope", "personal");
    }
    ToolCall call =
        new ToolCall(
            agent, owner, spec.name(), json.writeValueAsString(arguments), allowed.writable());
    String answer = calls.call(member, ProviderCalls.TOOL, () -> member.provider().callTool(call));
    try {
      return json.readTree(answer == null ? "null" : answer);
    } catch (JacksonException e) {
      throw new ProviderFailedException(
          "provider '" + member.id() + "' answered tool '" + spec.name() + "' with invalid JSON",
          e);
    }
  }

  /** The tool's JSON schema, parsed; a plain object schema (logged) when it is not JSON. */
  public JsonNode schema(StackMember member, ToolSpec spec) {
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

  /** Whether the tool's JSON schema declares a {@code scope} argument. */
  private boolean takesScope(StackMember member, ToolSpec spec) {
    JsonNode properties = schema(member, spec).get("properties");
    return properties != null && properties.isObject() && properties.has("scope");
  }
}
