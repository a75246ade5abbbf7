package dev.memstack.host.console;

import dev.memstack.host.api.JsonBody;
import dev.memstack.host.api.JsonRoutes;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;

/**
 * {@code GET /api/v1/agents/{agentId}/stats}: an agent's statistics, or one owner's ({@code
 * ownerKey}), with the samples of the last hour to chart ({@link StatsReport}). Needs {@code
 * viewer}; without {@code ownerKey} a token bound to no owner.
 */
@JsonRoutes("/api/v1/agents/{agentId}")
public class StatsController {

  private final StatsReport report;

  public StatsController(AgentStats stats, StatsSampler sampler) {
    this.report = new StatsReport(stats, sampler);
  }

  @Operation(
      summary = "An agent's or an owner's statistics, with samples of the last hour to chart")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/stats")
  public StatsReport.StatsView stats(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "ownerKey", required = false) String ownerKey) {
    return report.of(JsonBody.agent(agentId), JsonBody.owner(null, ownerKey));
  }
}
