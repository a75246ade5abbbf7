package dev.memstack.host.items;

import dev.memstack.host.api.ApiRequests;
import dev.memstack.host.api.BadRequestException;
import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.api.JsonBody;
import dev.memstack.host.api.JsonRoutes;
import dev.memstack.host.api.StandardRoute;
import dev.memstack.host.api.ToolInvoker;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springdoc.core.annotations.ParameterObject;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Memories one by one, on the standard tools ({@link StandardTools}) of the providers that claim
 * {@link Capability#MEMORY_ADMIN}: the one named by the {@code provider} query parameter, else
 * every running one ({@link AcrossProviders}: a listing merged newest first with each item's {@code
 * provider}, counts added up, a call by id answered by the provider that has the memory). Under
 * {@code /api/v1/agents/{agentId}/memory/items}: {@code GET} lists (paged, filtered), {@code GET
 * /count} counts, {@code GET /{id}} reads one, {@code PATCH /{id}} edits its text (optimistic
 * locking on {@code updatedAt}: a stale one is a {@code 409}), {@code POST /{id}/archive}, {@code
 * /suppress} and {@code /activate} change its status, {@code DELETE /{id}} forgets it and {@code
 * GET /{id}/history} answers its history. Each calls its tool through {@link ToolInvoker}, so the
 * right to call is the tool's declared effect's (reads {@code viewer}, changes {@code member}, an
 * owner the token covers) and the token's name is the history's actor; errors map as for every tool
 * call (an id the owner may not see is a {@code 404}, as one that does not exist).
 */
@JsonRoutes(MemoryItemsController.BASE)
public class MemoryItemsController {

  /** The routes' base path. */
  public static final String BASE = "/api/v1/agents/{agentId}/memory/items";

  private static final Set<String> EDIT_FIELDS = Set.of("text", "updatedAt", "ownerKey");

  /** A page's size when the request names none. */
  private static final int DEFAULT_LIMIT = 20;

  /** The status each status route sets, by the last segment of its path (one handler for all). */
  private static final Map<String, String> STATUS_OF =
      Map.of("archive", "archived", "suppress", "suppressed", "activate", "active");

  private final StandardRoute route;
  private final AcrossProviders across;

  public MemoryItemsController(CapabilityTools providers, JsonMapper json) {
    this.route = new StandardRoute(providers, json, Capability.MEMORY_ADMIN);
    this.across = new AcrossProviders(providers, json);
  }

  /** Calls {@code tool} of the target's provider or, with none named, across every one. */
  private JsonNode call(
      String agentId, OwnerKey owner, StandardRoute.Target target, String tool, ObjectNode args) {
    if (target.provider() != null && !target.provider().isBlank()) {
      return route.call(agentId, owner, target.provider(), tool, args);
    }
    AgentId agent = JsonBody.agent(agentId);
    return switch (tool) {
      case StandardTools.LIST_MEMORIES -> {
        int offset = args.path("offset").asInt(0);
        int limit = args.path("limit").asInt(DEFAULT_LIMIT);
        yield across.list(agent, owner, args.without(List.of("offset", "limit")), offset, limit);
      }
      case StandardTools.COUNT_MEMORIES -> across.count(agent, owner, args);
      default -> across.byId(agent, owner, tool, args);
    };
  }

  private JsonNode call(
      String agentId, StandardRoute.Target target, String tool, ObjectNode arguments) {
    return call(agentId, JsonBody.owner(null, target.ownerKey()), target, tool, arguments);
  }

  /**
   * The filters of the list and count routes, as query parameters.
   *
   * @param status one or more statuses, comma-separated
   * @param type one or more types, comma-separated
   * @param scope one scope
   * @param text words the memory's text holds
   * @param since created at or after (an ISO instant)
   * @param until created before (an ISO instant)
   */
  public record Filter(
      @Parameter(
              description =
                  "active, archived, suppressed, superseded, pending (comma-separated), any")
          String status,
      @Parameter(description = "memory types (comma-separated)") String type,
      @Parameter(description = "personal, team or global") String scope,
      @Parameter(description = "words the memory's text holds") String text,
      @Parameter(description = "created at or after (ISO instant)") String since,
      @Parameter(description = "created before (ISO instant)") String until) {

    ObjectNode into(ObjectNode arguments) {
      StandardRoute.putList(arguments, "status", status);
      StandardRoute.putList(arguments, "type", type);
      StandardRoute.putText(arguments, "scope", scope);
      StandardRoute.putText(arguments, "text", text);
      StandardRoute.putText(arguments, "since", since);
      return StandardRoute.putText(arguments, "until", until);
    }
  }

  @Operation(summary = "List an owner's memories, newest first, paged and filtered")
  @RequiresRole(Role.VIEWER)
  @GetMapping
  public JsonNode list(
      @PathVariable("agentId") String agentId,
      @ParameterObject StandardRoute.Target target,
      @ParameterObject StandardRoute.Page page,
      @ParameterObject Filter filter) {
    ObjectNode arguments = StandardRoute.paged(filter.into(route.arguments()), page);
    int offset = arguments.path("offset").asInt(0);
    int limit = arguments.path("limit").asInt(DEFAULT_LIMIT);
    if (offset < 0) {
      throw new BadRequestException("offset", "offset must be 0 or more, got: " + offset);
    }
    if (limit < 1 || limit > 100) {
      throw new BadRequestException("limit", "limit must be 1 to 100, got: " + limit);
    }
    return call(agentId, target, StandardTools.LIST_MEMORIES, arguments);
  }

  @Operation(summary = "Count an owner's memories: total, by status and by type")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/count")
  public JsonNode count(
      @PathVariable("agentId") String agentId,
      @ParameterObject StandardRoute.Target target,
      @ParameterObject Filter filter) {
    return call(agentId, target, StandardTools.COUNT_MEMORIES, filter.into(route.arguments()));
  }

  @Operation(summary = "Read one memory")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/{id}")
  public JsonNode get(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @ParameterObject StandardRoute.Target target) {
    return call(agentId, target, StandardTools.GET_MEMORY, route.byId(id, "memory"));
  }

  @Operation(summary = "One memory's history, oldest first")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/{id}/history")
  public JsonNode history(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @ParameterObject StandardRoute.Target target) {
    return call(agentId, target, StandardTools.MEMORY_HISTORY, route.byId(id, "memory"));
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
      @ParameterObject StandardRoute.Target target,
      @RequestBody JsonNode body) {
    StandardRoute.Body edit = StandardRoute.body(body, EDIT_FIELDS, target);
    ObjectNode arguments = route.byId(id, "memory");
    for (String field : new String[] {"text", "updatedAt"}) {
      arguments.put(
          field,
          StandardRoute.requiredString(
              edit.fields(), field, field + " is required and must be a string"));
    }
    return call(agentId, edit.owner(), target, StandardTools.EDIT_MEMORY, arguments);
  }

  @Operation(
      summary = "Change one memory's status",
      description =
          "archive: active to archived; suppress: active to suppressed; activate: archived,"
              + " suppressed or superseded to active.")
  @RequiresRole(Role.MEMBER)
  @PostMapping({"/{id}/archive", "/{id}/suppress", "/{id}/activate"})
  public JsonNode changeStatus(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @ParameterObject StandardRoute.Target target,
      HttpServletRequest request) {
    ObjectNode arguments =
        route.byId(id, "memory").put("status", STATUS_OF.get(ApiRequests.lastSegment(request)));
    return call(agentId, target, StandardTools.UPDATE_MEMORY_STATUS, arguments);
  }

  @Operation(summary = "Forget one memory: its text leaves its history too")
  @RequiresRole(Role.MEMBER)
  @DeleteMapping("/{id}")
  public JsonNode delete(
      @PathVariable("agentId") String agentId,
      @PathVariable("id") String id,
      @ParameterObject StandardRoute.Target target) {
    return call(agentId, target, StandardTools.DELETE_MEMORY, route.byId(id, "memory"));
  }
}
