package dev.memstack.host.lifecycle;

import dev.memstack.host.api.ApiRequests;
import dev.memstack.host.api.BadRequestException;
import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.api.JsonBody;
import dev.memstack.host.api.JsonRequestBody;
import dev.memstack.host.api.JsonRoutes;
import dev.memstack.host.api.StandardRoute;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import java.util.List;
import java.util.Set;
import org.springdoc.core.annotations.ParameterObject;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The lifecycle loop over REST, on the standard tools ({@link StandardTools}) of a provider that
 * claims {@link Capability#LIFECYCLE} (the {@code provider} query parameter names one, else the
 * first running one in stack order): the morning card ({@code GET .../memory/dream/morning-card},
 * also at the seeds' path {@code /api/v1/memory/{agentId}/dream/morning-card}) and the owner's
 * answer to one of its items ({@code POST .../memory/dream/reports/{reportId}/items/{index}}), the
 * reports ({@code GET .../memory/dream/reports}), a focused dream ({@code POST
 * .../memory/dream/focused}) and structured consolidation ({@code POST
 * .../memory/structured-consolidation}, also at {@code /api/v1/memory/{agentId}/...}), which runs
 * on every provider that claims the capability or serves that standard tool on its own (the vector
 * provider, over its typed memories) unless {@code provider} names one. Which day is yesterday is
 * decided in {@code memstack.lifecycle.zone}. Rights and errors are those of the tools ({@link
 * dev.memstack.host.api.ToolInvoker}): reads {@code viewer}, changes {@code member} and an owner
 * the token covers; a route that needs a chat model answers {@code 409} naming {@code
 * memstack.models.chat} without one.
 */
@JsonRoutes
public class LifecycleController {

  /** The routes' base path, beside every other route of an agent. */
  public static final String BASE = "/api/v1/agents/{agentId}/memory";

  /** The seeds' base path, an alias of {@link #BASE} for the card and consolidation. */
  public static final String ALIAS = "/api/v1/memory/{agentId}";

  private static final Set<String> ITEM_FIELDS = Set.of("action", "text", "ownerKey");
  private static final Set<String> FOCUSED_FIELDS = Set.of("topic", "ownerKey");
  private static final Set<String> OWNER_FIELDS = Set.of("ownerKey");

  /** The counts of a consolidation's answer, summed over the providers. */
  private static final List<String> COUNTS =
      List.of("ownersConsolidated", "updated", "entriesBefore", "entriesAfter");

  private final StandardRoute route;
  private final String zone;

  public LifecycleController(
      CapabilityTools providers, JsonMapper json, LifecycleProperties properties) {
    this.route = new StandardRoute(providers, json, Capability.LIFECYCLE);
    this.zone = properties.zone();
  }

  @Operation(summary = "The owner's morning card: what dreaming concluded yesterday, item by item")
  @RequiresRole(Role.VIEWER)
  @GetMapping(path = {BASE + "/dream/morning-card", ALIAS + "/dream/morning-card"})
  public JsonNode morningCard(
      @PathVariable("agentId") String agentId,
      @ParameterObject StandardRoute.Target target,
      @Parameter(description = "the card's day (default: yesterday in memstack.lifecycle.zone)")
          @RequestParam(name = "date", required = false)
          String date) {
    ObjectNode arguments = StandardRoute.putText(route.arguments().put("zone", zone), "date", date);
    return route.call(agentId, target, StandardTools.DREAM_MORNING_CARD, arguments);
  }

  @Operation(summary = "Confirm, edit or forget one item of a dreaming report (of the card)")
  @JsonRequestBody(ApiRequests.CardItemRequest.class)
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = BASE + "/dream/reports/{reportId}/items/{index}")
  public JsonNode resolveItem(
      @PathVariable("agentId") String agentId,
      @PathVariable("reportId") String reportId,
      @PathVariable("index") String index,
      @ParameterObject StandardRoute.Target target,
      @RequestBody JsonNode body) {
    StandardRoute.Body item = StandardRoute.body(body, ITEM_FIELDS, target);
    ObjectNode arguments = route.arguments().put("reportId", reportId);
    StandardRoute.putInt(arguments, "index", index);
    arguments.put(
        "action",
        StandardRoute.requiredString(
            item.fields(), "action", "action is required: confirm, edit or forget"));
    JsonNode text = item.fields().get("text");
    if (text != null && !text.isNull()) {
      if (!text.isString()) {
        throw new BadRequestException("text", "text must be a string");
      }
      arguments.put("text", text.stringValue());
    }
    return route.call(agentId, item, target, StandardTools.RESOLVE_CARD_ITEM, arguments);
  }

  @Operation(summary = "The structured reports of dreaming runs, newest first")
  @RequiresRole(Role.VIEWER)
  @GetMapping(path = BASE + "/dream/reports")
  public JsonNode reports(
      @PathVariable("agentId") String agentId,
      @ParameterObject StandardRoute.Target target,
      @Parameter(description = "first day (ISO date)")
          @RequestParam(name = "from", required = false)
          String from,
      @Parameter(description = "last day (ISO date)") @RequestParam(name = "to", required = false)
          String to) {
    ObjectNode arguments = route.arguments().put("zone", zone);
    StandardRoute.putText(arguments, "from", from);
    StandardRoute.putText(arguments, "to", to);
    return route.call(agentId, target, StandardTools.DREAM_REPORTS, arguments);
  }

  @Operation(summary = "Dream now on one topic only (needs a chat model)")
  @JsonRequestBody(ApiRequests.FocusedDreamRequest.class)
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = BASE + "/dream/focused")
  public JsonNode focused(
      @PathVariable("agentId") String agentId,
      @ParameterObject StandardRoute.Target target,
      @RequestBody JsonNode body) {
    StandardRoute.Body focus = StandardRoute.body(body, FOCUSED_FIELDS, target);
    String topic =
        StandardRoute.requiredString(
            focus.fields(), "topic", "topic is required and must be a string");
    ObjectNode arguments = route.arguments().put("topic", topic);
    return route.call(agentId, focus, target, StandardTools.RUN_FOCUSED_DREAM, arguments);
  }

  @Operation(
      summary =
          "Merge near-duplicate structured entries now, on every provider that serves it (needs a"
              + " chat model)")
  @JsonRequestBody(value = ApiRequests.MemoryJobRequest.class, required = false)
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = {BASE + "/structured-consolidation", ALIAS + "/structured-consolidation"})
  public JsonNode structuredConsolidation(
      @PathVariable("agentId") String agentId,
      @ParameterObject StandardRoute.Target target,
      @RequestBody(required = false) JsonNode body) {
    JsonNode given = body == null || body.isNull() || body.isMissingNode() ? null : body;
    StandardRoute.Body run =
        given == null
            ? new StandardRoute.Body(null, JsonBody.owner(null, target.ownerKey()))
            : StandardRoute.body(given, OWNER_FIELDS, target);
    AgentId agent = JsonBody.agent(agentId);
    List<CapabilityTools.Served> served =
        route
            .providers()
            .serving(
                Capability.LIFECYCLE,
                target.provider(),
                StandardTools.RUN_STRUCTURED_CONSOLIDATION);
    if (target.provider() != null && !target.provider().isBlank()) {
      return route.providers().call(served.get(0), agent, run.owner(), route.arguments());
    }
    return consolidated(served, agent, run.owner());
  }

  /**
   * Runs the consolidation on every provider in {@code served}, in stack order, and answers the
   * sums of {@link #COUNTS}, their buckets (each naming its {@code provider}) and each provider's
   * own answer under {@code providers}; {@code status} is {@code completed} when any provider ran.
   * A provider that fails is listed with its error while the others run; when every one fails, the
   * first failure is the answer (a missing chat model, say: {@code 409}).
   */
  private JsonNode consolidated(
      List<CapabilityTools.Served> served, AgentId agent, OwnerKey owner) {
    ObjectNode answer = route.arguments().put("agentId", agent.value());
    if (owner != null) {
      answer.put("ownerKey", owner.value());
    }
    answer.put("status", "skipped");
    answer.put("trigger", "manual");
    COUNTS.forEach(count -> answer.put(count, 0));
    ArrayNode buckets = answer.putArray("buckets");
    ArrayNode each = answer.putArray("providers");
    RuntimeException first = null;
    boolean answered = false;
    for (CapabilityTools.Served one : served) {
      String id = one.member().id();
      JsonNode result;
      try {
        result = route.providers().call(one, agent, owner, route.arguments());
      } catch (RuntimeException e) {
        first = first == null ? e : first;
        each.addObject().put("provider", id).put("status", "failed").put("error", e.getMessage());
        continue;
      }
      answered = true;
      ObjectNode item = each.addObject().put("provider", id);
      if (result != null && result.isObject()) {
        item.setAll((ObjectNode) result);
        for (String count : COUNTS) {
          answer.put(count, answer.get(count).asLong() + result.path(count).asLong(0));
        }
        for (JsonNode bucket : result.path("buckets")) {
          if (bucket.isObject()) {
            buckets.addObject().put("provider", id).setAll((ObjectNode) bucket);
          }
        }
        if ("completed".equals(result.path("status").asString(null))) {
          answer.put("status", "completed");
        }
      }
    }
    if (!answered) {
      throw first;
    }
    return answer;
  }
}
