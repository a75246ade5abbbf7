package dev.memstack.host.items;

import dev.memstack.host.api.BadRequestException;
import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.api.JsonBody;
import dev.memstack.host.api.JsonRoutes;
import dev.memstack.host.api.ToolInvoker;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import java.util.Set;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Memories one by one, on the standard tools ({@link StandardTools}) of a provider that claims
 * {@link Capability#MEMORY_ADMIN}: the one named by the {@code provider} query parameter, else the
 * first running one in stack order. Under {@code /api/v1/agents/{agentId}/memory/items}: {@code
 * GET} lists (paged, filtered), {@code GET /count} counts, {@code GET /{id}} reads one, {@code
 * PATCH /{id}} edits its text (optimistic locking on {@code updatedAt}: a stale one is a {@code
 * 409}), {@code POST /{id}/archive}, {@code /suppress} and {@code /activate} change its status,
 * {@code DELETE /{id}} forgets it and {@code GET /{id}/history} answers its history. Each calls its
 * tool through {@link ToolInvoker}, so the right to call is the tool's declared effect's (reads
 * {@code viewer}, changes {@code member}, an owner the token covers) and the token's name is the
 * history's actor; errors map as for every tool call (an id the owner may not see is a {@code 404},
 * as one that does not exist).
 */
@JsonRoutes(MemoryItemsController.BASE)
public class MemoryItemsController {

  /** The routes' base path. */
  public static final String BASE = "/api/v1/agents/{agentId}/memory/items";

  private static final Set<String> EDIT_FIELDS = Set.of("text", "updatedAt", "ownerKey");

  private final CapabilityTools providers;
  private final JsonMapper json;

  public MemoryItemsController(CapabilityTools providers, JsonMapper json) {
    this.providers = providers;
    this.json = json;
  }

  @Operation(summary = "List an owner's memories, newest first, paged and filtered")
  @RequiresRole(Role.VIEWER)
  @GetMapping
  public JsonNode list(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @Parameter(description = "the provider instance (default: the first that claims it)")
          @RequestParam(name = "provider", required = false)
          String provider,
      @RequestParam(name = "offset", required = false) String offset,
      @RequestParam(name = "limit", required = false) String limit,
      @Parameter(
              description =
                  "active, archived, suppressed, superseded, pending (comma-separated), any")
          @RequestParam(name = "status", required = false)
          String status,
      @RequestParam(name = "type", required = false) String type,
      @RequestParam(name = "scope", required = false) String scope,
      @Parameter(description = "words the memory's text holds")
          @RequestParam(name = "text", required = false)
          String text,
      @RequestParam(name = "since", required = false) String since,
      @RequestParam(name = "until", required = false) String until) {
    ObjectNode arguments = filters(status, type, scope, text, since, until);
    putInt(arguments, "offset", offset);
    putInt(arguments, "limit", limit);
    return call(agentId, ownerKey, provider, StandardTools.LIST_MEMORIES, arguments);
  }

  @Operation(summary = "Count an owner's memories: total, by status and by type")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/count")
  public JsonNode count(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestParam(name = "provider", required = false) String provider,
      @RequestParam(name = "status", required = false) String status,
      @RequestParam(name = "type", required = false) String type,
      @RequestParam(name = "scope", required = false) String scope,
      @RequestParam(name = "text", required = false) String text,
      @RequestParam(name = "since", required = false) String since,
      @RequestParam(name = "until", required = false) String until) {
    return call(
        agentId,
        ownerKey,
        provider,
        StandardTools.COUNT_MEMORIES,
        filters(status, type, scope, text, since, until));
  }

  @Operation(summary = "Read one memory")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/{id}")
  public JsonNode get(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestParam(name = "provider", required = false) String provider) {
    return call(agentId, ownerKey, provider, StandardTools.GET_MEMORY, byId(id));
  }

  @Operation(
      summary = "Edit one memory's text",
      description =
          "The body is {\"text\": ..., \"updatedAt\": <the updatedAt read>}; a memory changed since"
              + " answers 409 and is not written.")
  @RequiresRole(Role.MEMBER)
  @PatchMapping(path = "/{id}", consumes = MediaType.APPLICATION_JSON_VALUE)
  public JsonNode edit(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestParam(name = "provider", required = false) String provider,
      @RequestBody JsonNode body) {
    JsonBody checked = JsonBody.of(body).onlyFields(EDIT_FIELDS);
    JsonNode fields = checked.node();
    OwnerKey owner = JsonBody.owner(fields.get("ownerKey"), ownerKey);
    ObjectNode arguments = byId(id);
    for (String field : new String[] {"text", "updatedAt"}) {
      JsonNode value = fields.get(field);
      if (value == null || !value.isString() || value.stringValue().isBlank()) {
        throw new BadRequestException(field, field + " is required and must be a string");
      }
      arguments.put(field, value.stringValue());
    }
    return call(JsonBody.agent(agentId), owner, provider, StandardTools.EDIT_MEMORY, arguments);
  }

  @Operation(summary = "Archive one memory (active to archived)")
  @RequiresRole(Role.MEMBER)
  @PostMapping("/{id}/archive")
  public JsonNode archive(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestParam(name = "provider", required = false) String provider) {
    return status(agentId, id, ownerKey, provider, "archived");
  }

  @Operation(summary = "Suppress one memory (active to suppressed)")
  @RequiresRole(Role.MEMBER)
  @PostMapping("/{id}/suppress")
  public JsonNode suppress(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestParam(name = "provider", required = false) String provider) {
    return status(agentId, id, ownerKey, provider, "suppressed");
  }

  @Operation(summary = "Activate one memory (archived, suppressed or superseded to active)")
  @RequiresRole(Role.MEMBER)
  @PostMapping("/{id}/activate")
  public JsonNode activate(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestParam(name = "provider", required = false) String provider) {
    return status(agentId, id, ownerKey, provider, "active");
  }

  @Operation(summary = "Forget one memory: its text leaves its history too")
  @RequiresRole(Role.MEMBER)
  @DeleteMapping("/{id}")
  public JsonNode delete(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestParam(name = "provider", required = false) String provider) {
    return call(agentId, ownerKey, provider, StandardTools.DELETE_MEMORY, byId(id));
  }

  @Operation(summary = "One memory's history, oldest first")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/{id}/history")
  public JsonNode history(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestParam(name = "provider", required = false) String provider) {
    return call(agentId, ownerKey, provider, StandardTools.MEMORY_HISTORY, byId(id));
  }

  // ------------------------------------------------------------------

  private JsonNode status(
      String agentId, String id, String ownerKey, String provider, String status) {
    ObjectNode arguments = byId(id).put("status", status);
    return call(agentId, ownerKey, provider, StandardTools.UPDATE_MEMORY_STATUS, arguments);
  }

  private JsonNode call(
      String agentId, String ownerKey, String provider, String tool, ObjectNode arguments) {
    return call(JsonBody.agent(agentId), JsonBody.owner(null, ownerKey), provider, tool, arguments);
  }

  private JsonNode call(
      AgentId agent, OwnerKey owner, String provider, String tool, ObjectNode arguments) {
    return providers.callStandard(Capability.MEMORY_ADMIN, provider, tool, agent, owner, arguments);
  }

  private ObjectNode byId(String id) {
    if (id == null || id.isBlank() || id.length() > 512) {
      throw new BadRequestException("id", "a memory id is 1 to 512 characters");
    }
    return json.createObjectNode().put("id", id);
  }

  private ObjectNode filters(
      String status, String type, String scope, String text, String since, String until) {
    ObjectNode arguments = json.createObjectNode();
    putList(arguments, "status", status);
    putList(arguments, "type", type);
    putText(arguments, "scope", scope);
    putText(arguments, "text", text);
    putText(arguments, "since", since);
    putText(arguments, "until", until);
    return arguments;
  }

  private static void putText(ObjectNode arguments, String name, String value) {
    if (value != null && !value.isBlank()) {
      arguments.put(name, value.strip());
    }
  }

  private static void putList(ObjectNode arguments, String name, String value) {
    if (value == null || value.isBlank()) {
      return;
    }
    ArrayNode list = arguments.putArray(name);
    for (String part : value.split(",")) {
      if (!part.isBlank()) {
        list.add(part.strip());
      }
    }
  }

  private static void putInt(ObjectNode arguments, String name, String value) {
    if (value == null || value.isBlank()) {
      return;
    }
    try {
      arguments.put(name, Integer.parseInt(value.strip()));
    } catch (NumberFormatException e) {
      throw new BadRequestException(name, name + " must be a whole number, got: " + value);
    }
  }
}
