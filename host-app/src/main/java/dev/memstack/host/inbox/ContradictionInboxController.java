package dev.memstack.host.inbox;

import dev.memstack.host.api.BadRequestException;
import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.api.JsonRoutes;
import dev.memstack.host.api.StandardRoute;
import dev.memstack.host.api.ToolInvoker;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.Capability;
import dev.memstack.spi.StandardTools;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import java.util.Set;
import org.springdoc.core.annotations.ParameterObject;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The contradiction inbox, on the standard tools ({@link StandardTools#LIST_CONTRADICTIONS}, {@link
 * StandardTools#RESOLVE_CONTRADICTION}) of a provider that claims {@link
 * Capability#CONTRADICTIONS}: the one named by the {@code provider} query parameter, else the first
 * running one in stack order. Under {@code /api/v1/agents/{agentId}/memory/inbox}: {@code GET}
 * lists the owner's open contradictions (oldest first, paged), {@code POST /{id}} decides one
 * ({@code keep-new}, {@code keep-old} or {@code keep-both}). Each calls its tool through {@link
 * ToolInvoker}, so the right to call is the tool's declared effect's (reads {@code viewer}, changes
 * {@code member}, an owner the token covers), the token's name is the histories' actor, and errors
 * map as for every tool call (another owner's contradiction, or one already decided, is a {@code
 * 404}).
 */
@JsonRoutes(ContradictionInboxController.BASE)
public class ContradictionInboxController {

  /** The routes' base path. */
  public static final String BASE = "/api/v1/agents/{agentId}/memory/inbox";

  private static final Set<String> DECISIONS = Set.of("keep-new", "keep-old", "keep-both");
  private static final Set<String> RESOLVE_FIELDS = Set.of("decision", "ownerKey");

  private final StandardRoute route;

  public ContradictionInboxController(CapabilityTools providers, JsonMapper json) {
    this.route = new StandardRoute(providers, json, Capability.CONTRADICTIONS);
  }

  @Operation(
      summary = "List an owner's open contradictions, oldest first, paged",
      description =
          "Each contradiction names the active memory it disputes (existing) and the pending one"
              + " that disputes it (incoming), with both texts.")
  @RequiresRole(Role.VIEWER)
  @GetMapping
  public JsonNode list(
      @PathVariable("agentId") String agentId,
      @ParameterObject StandardRoute.Target target,
      @ParameterObject StandardRoute.Page page) {
    ObjectNode arguments = StandardRoute.paged(route.arguments(), page);
    return route.call(agentId, target, StandardTools.LIST_CONTRADICTIONS, arguments);
  }

  @Operation(
      summary = "Decide one contradiction",
      description =
          "The body is {\"decision\": \"keep-new\" | \"keep-old\" | \"keep-both\"}: keep-new"
              + " activates the incoming memory and supersedes the existing one, keep-old archives"
              + " the incoming one, keep-both keeps both active. Recorded in both memories'"
              + " histories; a contradiction already decided answers 404.")
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = "/{id}", consumes = MediaType.APPLICATION_JSON_VALUE)
  public JsonNode resolve(
      @PathVariable("agentId") String agentId,
      @Parameter(description = "the contradiction's id, as listed") @PathVariable("id") String id,
      @ParameterObject StandardRoute.Target target,
      @RequestBody JsonNode body) {
    ObjectNode arguments = route.byId(id, "contradiction");
    StandardRoute.Body resolve = StandardRoute.body(body, RESOLVE_FIELDS, target);
    JsonNode decision = resolve.fields().get("decision");
    if (decision == null || !decision.isString() || !DECISIONS.contains(decision.stringValue())) {
      throw new BadRequestException(
          "decision", "decision is required: keep-new, keep-old or keep-both");
    }
    arguments.put("decision", decision.stringValue());
    return route.call(agentId, resolve, target, StandardTools.RESOLVE_CONTRADICTION, arguments);
  }
}
