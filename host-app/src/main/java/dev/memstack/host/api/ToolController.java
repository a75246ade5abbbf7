package dev.memstack.host.api;

import dev.memstack.host.provider.StackMember;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.ToolSpec;
import io.swagger.v3.oas.annotations.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import tools.jackson.databind.JsonNode;

/**
 * Provider tools for agents: {@code GET .../tools} lists every running provider's tools with their
 * JSON schemas and declared effects; {@code POST .../tools/{providerId}/{tool}} calls one with a
 * JSON object of arguments. The owner the call acts for is {@code ownerKey} in the body (removed
 * from the arguments) or the {@code ownerKey} query parameter; without one the tool sees shared
 * memory only. The provider's {@code ToolException} kinds map to 400 (with the argument as {@code
 * field}), 404, 409, 403 and 503.
 *
 * <p>Listing needs {@code viewer}; a call needs what the tool's declared effect asks ({@link
 * ToolInvoker}): {@code viewer} for a {@code read} tool, {@code member} for any other, and an owner
 * the token covers. A token bound to owners writes only their personal memory: its write calls need
 * an owner, a {@code scope} other than {@code personal} is refused, a tool whose schema takes a
 * {@code scope} gets {@code "scope": "personal"} when the call gives none, and the provider refuses
 * (403) a change to a team or global record the tool names by id.
 */
@JsonRoutes("/api/v1/agents/{agentId}/tools")
public class ToolController {

  private final ToolInvoker tools;

  public ToolController(ToolInvoker tools) {
    this.tools = tools;
  }

  /** The list answer. */
  public record Tools(List<ToolView> tools) {}

  /**
   * One tool of one provider; {@code inputSchema} is the parsed JSON Schema, {@code effect} the
   * declared effect in lower case ({@code read}, {@code write}, {@code destructive}, {@code
   * undeclared}).
   */
  public record ToolView(
      String provider, String name, String description, String effect, JsonNode inputSchema) {}

  @Operation(summary = "Every running provider's tools with their JSON schemas")
  @RequiresRole(Role.VIEWER)
  @GetMapping
  public Tools tools(@PathVariable("agentId") String agentId) {
    JsonBody.agent(agentId);
    List<ToolView> views = new ArrayList<>();
    for (ToolInvoker.Listed listed : tools.listAll("")) {
      StackMember member = listed.member();
      for (ToolSpec spec : listed.tools()) {
        views.add(
            new ToolView(
                member.id(),
                spec.name(),
                spec.description(),
                spec.effect().name().toLowerCase(Locale.ROOT),
                tools.schema(member, spec)));
      }
    }
    return new Tools(views);
  }

  @Operation(summary = "Call one provider tool")
  @JsonRequestBody(value = ApiRequests.ToolArguments.class, required = false)
  @RequiresRole(Role.VIEWER)
  @PostMapping(path = "/{providerId}/{tool}")
  public JsonNode call(
      @PathVariable("agentId") String agentId,
      @PathVariable("providerId") String providerId,
      @PathVariable("tool") String tool,
      @RequestParam(name = "ownerKey", required = false) String ownerParam,
      @RequestBody(required = false) JsonNode body) {
    return tools.call(JsonBody.agent(agentId), providerId, tool, ownerParam, body);
  }
}
