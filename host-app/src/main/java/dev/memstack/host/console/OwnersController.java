package dev.memstack.host.console;

import dev.memstack.host.api.BadRequestException;
import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.api.JsonBody;
import dev.memstack.host.api.JsonRoutes;
import dev.memstack.host.api.StandardRoute;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.spi.OwnerKey;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code GET /api/v1/agents/{agentId}/owners}: the owners the agent holds personal memories of,
 * paged, each with its count per provider that claims the admin capability ({@link OwnerListing});
 * a token bound to owners sees only its own. Needs {@code viewer}; a bad {@code offset}, {@code
 * limit} or {@code q} is a 400 naming it.
 */
@JsonRoutes("/api/v1/agents/{agentId}")
public class OwnersController {

  /** Owners per page by default. */
  public static final int DEFAULT_LIMIT = 50;

  /** Most owners per page. */
  public static final int MAX_LIMIT = 1000;

  /** Longest {@code q}: an owner key's length. */
  public static final int MAX_QUERY = OwnerKey.MAX_LENGTH;

  private final OwnerListing listing;

  public OwnersController(CapabilityTools providers, AccessPolicy access, JsonMapper json) {
    this.listing = new OwnerListing(providers, access, json);
  }

  @Operation(summary = "The owners of an agent's memory, with their counts per provider, paged")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/owners")
  public OwnerListing.OwnersView owners(
      @PathVariable("agentId") String agentId,
      @Parameter(description = "owners skipped (default 0)")
          @RequestParam(name = "offset", required = false)
          String offset,
      @Parameter(description = "owners per page, 1 to 1000 (default 50)")
          @RequestParam(name = "limit", required = false)
          String limit,
      @Parameter(description = "a part of the owner key, any case")
          @RequestParam(name = "q", required = false)
          String q) {
    String part = q == null || q.isBlank() ? null : q.strip();
    if (part != null && part.length() > MAX_QUERY) {
      throw new BadRequestException("q", "q is at most " + MAX_QUERY + " characters");
    }
    return listing.page(
        JsonBody.agent(agentId),
        StandardRoute.intParam("offset", offset, 0, 1_000_000, 0),
        StandardRoute.intParam("limit", limit, 1, MAX_LIMIT, DEFAULT_LIMIT),
        part);
  }
}
