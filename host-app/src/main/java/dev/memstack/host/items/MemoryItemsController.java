package dev.memstack.host.items;

import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.api.JsonBody;
import dev.memstack.host.api.JsonRoutes;
import dev.memstack.host.api.StandardRoute;
import dev.memstack.host.api.ToolInvoker;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
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

  private final StandardRoute route;

  public MemoryItemsController(CapabilityTools providers, JsonMapper json) {
    this.route = new StandardRoute(providers, json, Capability.MEMORY_ADMIN);
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
    StandardRoute.putInt(arguments, "offset", offset);
    StandardRoute.putInt(arguments, "limit", limit);
    return route.call(agentId, ownerKey, provider, StandardTools.LIST_MEMORIES, arguments);
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
    ObjectNode arguments = filters(status, type, scope, text, since, until);
    return route.call(agentId, ownerKey, provider, StandardTools.COUNT_MEMORIES, arguments);
  }

  @Operation(summary = "Read one memory")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/{id}")
  public JsonNode get(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestParam(name = "provider", required = false) String provider) {
    return byId(agentId, id, ownerKey, provider, StandardTools.GET_MEMORY);
  }

  @Operation(summary = "One memory's history, oldest first")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/{id}/history")
  public JsonNode history(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestParam(name = "provider", required = false) String provider) {
    return byId(agentId, id, ownerKey, provider, StandardTools.MEMORY_HISTORY);
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
    JsonNode fields = JsonBody.of(body).onlyFields(EDIT_FIELDS).node();
    OwnerKey owner = JsonBody.owner(fields.get("ownerKey"), ownerKey);
    ObjectNode arguments = route.byId(id, "memory");
    for (String field : new String[] {"text", "updatedAt"}) {
      arguments.put(
          field,
          StandardRoute.requiredString(fields, field, field + " is required and must be a string"));
    }
    return route.call(agentId, owner, provider, StandardTools.EDIT_MEMORY, arguments);
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
    return byId(agentId, id, ownerKey, provider, StandardTools.DELETE_MEMORY);
  }

  private JsonNode status(
      String agentId, String id, String ownerKey, String provider, String status) {
    ObjectNode arguments = route.byId(id, "memory").put("status", status);
    return route.call(agentId, ownerKey, provider, StandardTools.UPDATE_MEMORY_STATUS, arguments);
  }

  private JsonNode byId(String agentId, String id, String ownerKey, String provider, String tool) {
    return route.call(agentId, ownerKey, provider, tool, route.byId(id, "memory"));
  }

  private ObjectNode filters(
      String status, String type, String scope, String text, String since, String until) {
    ObjectNode arguments = route.arguments();
    StandardRoute.putList(arguments, "status", status);
    StandardRoute.putList(arguments, "type", type);
    StandardRoute.putText(arguments, "scope", scope);
    StandardRoute.putText(arguments, "text", text);
    StandardRoute.putText(arguments, "since", since);
    StandardRoute.putText(arguments, "until", until);
    return arguments;
  }
}
