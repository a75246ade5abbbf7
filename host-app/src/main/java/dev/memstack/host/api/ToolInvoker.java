package dev.memstack.host.api;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.security.AccessDeniedException;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.stack.RequestChecks;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ControlCharacters;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

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

  /** One running member and the tools it listed ({@code null} if it listed {@code null}). */
  public record Listed(StackMember member, List<ToolSpec> tools) {}

  /**
   * The tools of every running member, in stack order ({@link #tools(StackMember)}); a member whose
   * listing fails is logged and left out.
   *
   * @param purpose what the list is for, added to the log line (e.g. {@code " for MCP"}), or empty
   */
  public List<Listed> listAll(String purpose) {
    List<Listed> listed = new ArrayList<>();
    for (StackMember member : members.enabled()) {
      try {
        listed.add(new Listed(member, tools(member)));
      } catch (RuntimeException e) {
        log.warn("Provider {} could not list its tools{}: {}", member.id(), purpose, e.toString());
      }
    }
    return listed;
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
    keepToTheCallersOwners(spec, owner, arguments);
    if (spec.effect().changesMemory()) {
      checkText(arguments, "");
    }
    ToolCall call =
        new ToolCall(
            agent,
            owner,
            spec.name(),
            json.writeValueAsString(arguments),
            allowed.writable(),
            access.caller().actor());
    String answer = calls.call(member, ProviderCalls.TOOL, () -> member.provider().callTool(call));
    try {
      return cleaned(json.readTree(answer == null ? "null" : answer));
    } catch (JacksonException e) {
      throw new ProviderFailedException(
          "provider '" + member.id() + "' answered tool '" + spec.name() + "' with invalid JSON",
          e);
    }
  }

  /**
   * The standard tools that read across owners ({@link StandardTools#LIST_OWNERS}, {@link
   * StandardTools#COUNT_MEMORIES} with {@code allOwners}) kept to what a token bound to owners
   * covers: {@code list_owners} without an owner gets the binding's prefix as {@code prefix} (a
   * {@code prefix} outside it, or a binding to one owner key, is a 403), and {@code allOwners} is a
   * 403 for any bound token. Applied by name whether or not the member claims the capability: a
   * tool of that name is never let past a binding.
   */
  private void keepToTheCallersOwners(ToolSpec spec, OwnerKey owner, ObjectNode arguments) {
    if (spec.name().equals(StandardTools.COUNT_MEMORIES)) {
      JsonNode all = arguments.get("allOwners");
      if (all != null && !all.isNull() && !(all.isBoolean() && !all.booleanValue())) {
        access.requireEveryOwner("the memory counts");
      }
    } else if (spec.name().equals(StandardTools.LIST_OWNERS) && owner == null) {
      String bound = access.ownerListingPrefix();
      if (bound == null) {
        return;
      }
      JsonNode given = arguments.get("prefix");
      if (given == null || given.isNull() || (given.isString() && given.stringValue().isEmpty())) {
        arguments.put("prefix", bound);
      } else if (!given.isString() || !given.stringValue().startsWith(bound)) {
        throw new AccessDeniedException(
            "this token may list the owners " + bound + "* only, not prefix " + given);
      }
    }
  }

  /**
   * Holds every string of the arguments of a tool that may store them (any effect but {@code read};
   * values and names, at any depth) to the text rule: no NUL and no control character but tab, LF
   * and CR ({@link RequestChecks#storedText}); the error names the argument ({@code text}, {@code
   * items[2].text}).
   */
  private static void checkText(JsonNode node, String path) {
    if (node.isString()) {
      RequestChecks.storedText(path.isEmpty() ? "arguments" : path, node.stringValue());
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        checkText(node.get(i), path + "[" + i + "]");
      }
    } else if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        String name = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
        RequestChecks.storedText(name, field.getKey());
        checkText(field.getValue(), name);
      }
    }
  }

  /**
   * A tool's answer with the control characters the text rule refuses removed from its strings:
   * memory stored before the rule (or by a provider's own path) reaches no caller with a NUL or an
   * ESC in it. The same tree when there is nothing to remove.
   */
  static JsonNode cleaned(JsonNode node) {
    if (node == null) {
      return null;
    }
    if (node.isString()) {
      String text = node.stringValue();
      String clean = ControlCharacters.strip(text);
      return clean == text ? node : StringNode.valueOf(clean);
    }
    if (node.isArray()) {
      ArrayNode array = (ArrayNode) node;
      for (int i = 0; i < array.size(); i++) {
        JsonNode item = array.get(i);
        JsonNode clean = cleaned(item);
        if (clean != item) {
          array.set(i, clean);
        }
      }
      return array;
    }
    if (node.isObject()) {
      ObjectNode object = (ObjectNode) node;
      List<String> changed = new ArrayList<>();
      for (Map.Entry<String, JsonNode> field : object.properties()) {
        if (cleaned(field.getValue()) != field.getValue()
            || ControlCharacters.find(field.getKey()) >= 0) {
          changed.add(field.getKey());
        }
      }
      for (String name : changed) {
        JsonNode value = cleaned(object.remove(name));
        object.set(ControlCharacters.strip(name), value);
      }
      return object;
    }
    return node;
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
