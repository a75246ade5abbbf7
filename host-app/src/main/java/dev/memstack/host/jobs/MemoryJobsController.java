package dev.memstack.host.jobs;

import dev.memstack.host.api.ApiRequests;
import dev.memstack.host.api.BadRequestException;
import dev.memstack.host.api.JsonBody;
import dev.memstack.host.api.MemoryController;
import dev.memstack.host.api.NotFoundException;
import dev.memstack.host.api.ToolInvoker;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ToolSpec;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.Set;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The memory jobs of the builtin provider (instance id {@value #PROVIDER}) over REST: {@code POST
 * /api/v1/memory/{agentId}/summarize/{conversationId}} (owner as {@code ownerKey} in the body or
 * the query) runs post-turn extraction now, {@code POST .../emergence} (optional {@code ownerKey})
 * runs dreaming now, {@code GET .../dreaming/status} answers the last run, the next run and the
 * newest DREAMS.md entry. Each calls the provider's tool ({@code summarize_conversation}, {@code
 * run_emergence}, {@code dreaming_status}) through {@link ToolInvoker}; its errors map as for every
 * tool, so without a chat model the answer is {@code 409 {"error":"conflict","message":"no chat
 * model configured"}}. Each route needs what the tool's declared effect needs, as when the tool is
 * called directly: the POSTs (write tools) {@code member} and an owner the token covers (an
 * owner-bound token must name one), the status (a read tool) {@code viewer}.
 */
@RestController
@RequestMapping(path = "/api/v1/memory/{agentId}", produces = MediaType.APPLICATION_JSON_VALUE)
public class MemoryJobsController {

  /** The provider instance whose tools these routes call. */
  public static final String PROVIDER = "builtin";

  private final StackMembers members;
  private final ToolInvoker tools;
  private final JsonMapper json;

  public MemoryJobsController(StackMembers members, ToolInvoker tools, JsonMapper json) {
    this.members = members;
    this.tools = tools;
    this.json = json;
  }

  @Operation(summary = "Extract memory from one conversation of the owner now (needs a chat model)")
  @io.swagger.v3.oas.annotations.parameters.RequestBody(
      content = @Content(schema = @Schema(implementation = ApiRequests.MemoryJobRequest.class)))
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = "/summarize/{conversationId}")
  public JsonNode summarize(
      @PathVariable("agentId") String agentId,
      @PathVariable("conversationId") String conversationId,
      @RequestParam(name = "ownerKey", required = false) String ownerParam,
      @RequestBody(required = false) JsonNode body) {
    AgentId agent = MemoryController.agent(agentId);
    OwnerKey owner = owner(body, ownerParam);
    if (owner == null) {
      throw new BadRequestException("ownerKey", "ownerKey is required (in the body or the query)");
    }
    ObjectNode arguments = json.createObjectNode().put("conversationId", conversationId);
    return call(agent, owner, "summarize_conversation", arguments);
  }

  @Operation(summary = "Dream now: the team's memory and owners with recent notes, or one owner's")
  @io.swagger.v3.oas.annotations.parameters.RequestBody(
      content = @Content(schema = @Schema(implementation = ApiRequests.MemoryJobRequest.class)))
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = "/emergence")
  public JsonNode emergence(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "ownerKey", required = false) String ownerParam,
      @RequestBody(required = false) JsonNode body) {
    AgentId agent = MemoryController.agent(agentId);
    OwnerKey owner = owner(body, ownerParam);
    return call(agent, owner, "run_emergence", json.createObjectNode());
  }

  @Operation(summary = "The last and next dreaming run, and the newest entry of DREAMS.md")
  @RequiresRole(Role.VIEWER)
  @GetMapping(path = "/dreaming/status")
  public JsonNode status(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "ownerKey", required = false) String ownerParam) {
    AgentId agent = MemoryController.agent(agentId);
    OwnerKey owner = owner(null, ownerParam);
    return call(agent, owner, "dreaming_status", json.createObjectNode());
  }

  private JsonNode call(AgentId agent, OwnerKey owner, String tool, ObjectNode arguments) {
    StackMember member =
        members
            .find(PROVIDER)
            .orElseThrow(
                () -> new NotFoundException("no running provider with id '" + PROVIDER + "'"));
    ToolSpec spec =
        tools
            .find(member, tool)
            .orElseThrow(
                () ->
                    new NotFoundException(
                        "provider '" + PROVIDER + "' has no tool '" + tool + "'"));
    return tools.call(member, spec, agent, owner, arguments);
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
