package dev.memstack.host.jobs;

import dev.memstack.host.api.ApiProperties;
import dev.memstack.host.api.ApiRequests;
import dev.memstack.host.api.BadRequestException;
import dev.memstack.host.api.CapabilityRoute;
import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.api.JsonBody;
import dev.memstack.host.api.JsonRequestBody;
import dev.memstack.host.api.JsonRoutes;
import dev.memstack.host.api.NotFoundException;
import dev.memstack.host.api.ToolInvoker;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import io.swagger.v3.oas.annotations.Operation;
import java.util.Set;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The memory jobs over REST, on the standard tools ({@link StandardTools}) of the provider that
 * claims {@link Capability#MEMORY_JOBS} (the instance {@code memstack.api.memory-jobs-provider}
 * when set, else the first running one in stack order; {@link CapabilityTools}): {@code POST
 * /api/v1/agents/{agentId}/memory/summarize/{conversationId}} (owner as {@code ownerKey} in the
 * body or the query) runs post-turn extraction now, {@code POST .../emergence} (optional {@code
 * ownerKey}) runs dreaming now, {@code GET .../dreaming/status} answers the last run, the next run
 * and the newest DREAMS.md entry. Each route also answers at its first path, {@code
 * /api/v1/memory/{agentId}/...}, with the same handler. Each calls its tool ({@code
 * summarize_conversation}, {@code run_emergence}, {@code dreaming_status}) through {@link
 * ToolInvoker}; its errors map as for every tool, so without a chat model the answer is {@code 409
 * {"error":"conflict","message":"no chat model configured"}}, and without a provider that claims
 * the capability {@code 404} naming it. Each route needs what the tool's declared effect needs, as
 * when the tool is called directly: the POSTs (write tools) {@code member} and an owner the token
 * covers (an owner-bound token must name one), the status (a read tool) {@code viewer}.
 */
@JsonRoutes
public class MemoryJobsController {

  /** The routes' base path, beside every other route of an agent. */
  public static final String BASE = "/api/v1/agents/{agentId}/memory";

  /** The routes' first base path, kept as an alias of {@link #BASE}. */
  public static final String ALIAS = "/api/v1/memory/{agentId}";

  private static final String SETTING = "memstack.api.memory-jobs-provider";

  private final CapabilityRoute jobs;
  private final JsonMapper json;

  public MemoryJobsController(
      CapabilityTools providers, JsonMapper json, ApiProperties properties) {
    this.jobs =
        providers.route(
            Capability.MEMORY_JOBS,
            properties.memoryJobsProvider(),
            SETTING,
            NotFoundException::new);
    this.json = json;
  }

  @Operation(summary = "Extract memory from one conversation of the owner now (needs a chat model)")
  @JsonRequestBody(value = ApiRequests.MemoryJobRequest.class, required = false)
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = {BASE + "/summarize/{conversationId}", ALIAS + "/summarize/{conversationId}"})
  public JsonNode summarizeConversation(
      @PathVariable("agentId") String agentId,
      @PathVariable("conversationId") String conversationId,
      @RequestParam(name = "ownerKey", required = false) String ownerParam,
      @RequestBody(required = false) JsonNode body) {
    AgentId agent = JsonBody.agent(agentId);
    OwnerKey owner = owner(body, ownerParam);
    if (owner == null) {
      throw new BadRequestException("ownerKey", "ownerKey is required (in the body or the query)");
    }
    ObjectNode arguments = json.createObjectNode().put("conversationId", conversationId);
    return call(agent, owner, StandardTools.SUMMARIZE_CONVERSATION, arguments);
  }

  @Operation(summary = "Dream now: the team's memory and owners with recent notes, or one owner's")
  @JsonRequestBody(value = ApiRequests.MemoryJobRequest.class, required = false)
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = {BASE + "/emergence", ALIAS + "/emergence"})
  public JsonNode runEmergence(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "ownerKey", required = false) String ownerParam,
      @RequestBody(required = false) JsonNode body) {
    AgentId agent = JsonBody.agent(agentId);
    OwnerKey owner = owner(body, ownerParam);
    return call(agent, owner, StandardTools.RUN_EMERGENCE, json.createObjectNode());
  }

  @Operation(summary = "The last and next dreaming run, and the newest entry of DREAMS.md")
  @RequiresRole(Role.VIEWER)
  @GetMapping(path = {BASE + "/dreaming/status", ALIAS + "/dreaming/status"})
  public JsonNode dreamingStatus(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "ownerKey", required = false) String ownerParam) {
    AgentId agent = JsonBody.agent(agentId);
    OwnerKey owner = owner(null, ownerParam);
    return call(agent, owner, StandardTools.DREAMING_STATUS, json.createObjectNode());
  }

  private JsonNode call(AgentId agent, OwnerKey owner, String tool, ObjectNode arguments) {
    return jobs.call(agent, owner, tool, arguments);
  }

  /** The body takes {@code ownerKey} only: any other field is refused, naming it. */
  private static OwnerKey owner(JsonNode body, String ownerParam) {
    JsonNode inBody = null;
    if (body != null && !body.isNull() && !body.isMissingNode()) {
      inBody = JsonBody.of(body).onlyFields(Set.of("ownerKey")).node().get("ownerKey");
    }
    return JsonBody.owner(inBody, ownerParam);
  }
}
