package dev.memstack.host.api;

import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.host.stack.ContextAnswer;
import dev.memstack.host.stack.MemoryStack;
import dev.memstack.host.stack.WindowedContext;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import tools.jackson.databind.JsonNode;

/**
 * The two calls an agent platform makes per turn: {@code POST .../memory/context} before the model
 * runs (system prompt, recall and the fenced context block) and {@code POST .../memory/turns} after
 * it answered (202; delivery to the providers happens in the background), plus {@code POST
 * .../memory/feedback}. An adapter over the {@link MemoryStack}: each route reads its body into the
 * stack's request record ({@link MemoryRequests}, which checks the owner against the caller's
 * token), calls the stack and renders its answer; a rejected request stores nothing. {@code POST
 * .../memory/context/preview} answers as the context call would and changes nothing ({@link
 * WindowedContext#preview}). A context call and its preview need {@code viewer}, a turn and
 * feedback {@code member}.
 */
@JsonRoutes("/api/v1/agents/{agentId}/memory")
public class MemoryController {

  private final MemoryStack stack;
  private final WindowedContext contexts;
  private final AccessPolicy access;

  public MemoryController(MemoryStack stack, WindowedContext contexts, AccessPolicy access) {
    this.stack = stack;
    this.contexts = contexts;
    this.access = access;
  }

  /**
   * The answer of a feedback call: per provider, how many of the {@code used} ids ({@code applied},
   * the name it had before {@code wrong} existed) and of the {@code wrong} ids ({@code
   * wrongApplied}) it applied; -1 when it takes none of that kind (or its call failed). Each map
   * holds the providers its list named, and is empty when the call did not give that list.
   */
  public record FeedbackResponse(Map<String, Integer> applied, Map<String, Integer> wrongApplied) {}

  /** The answer of a turn submission. */
  public record TurnAccepted(String turnId) {}

  @Operation(
      summary =
          "Context before the model runs: system prompt, owner prompt, recall and the fenced context block")
  @JsonRequestBody(ApiRequests.ContextRequest.class)
  @RequiresRole(Role.VIEWER)
  @PostMapping(path = "/context", consumes = MediaType.APPLICATION_JSON_VALUE)
  public ContextAnswer context(
      @PathVariable("agentId") String agentId, @RequestBody(required = false) JsonNode body) {
    return contexts.context(MemoryRequests.context(JsonBody.agent(agentId), body, access));
  }

  /**
   * The owner confirms that recalled items were used or marks them wrong: {@code {"ownerKey",
   * "used": [{"provider", "id"}], "wrong": [{"provider", "id"}]}} (either list or both), each
   * {@code id} the {@code metadata.id} of a recall item as the context call returned it. These are
   * the only signals that change ranking, and only for this owner.
   */
  @Operation(
      summary =
          "Confirm that recalled items were used, or mark them wrong (the only signals that change"
              + " ranking)")
  @JsonRequestBody(ApiRequests.FeedbackRequest.class)
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = "/feedback", consumes = MediaType.APPLICATION_JSON_VALUE)
  public FeedbackResponse feedback(
      @PathVariable("agentId") String agentId, @RequestBody(required = false) JsonNode body) {
    AgentId agent = JsonBody.agent(agentId);
    JsonBody json = JsonBody.of(body);
    OwnerKey owner = MemoryRequests.feedbackOwner(json, access);
    MemoryStack.FeedbackApplied applied =
        stack.feedback(agent, owner, MemoryRequests.used(json), MemoryRequests.wrong(json));
    return new FeedbackResponse(applied.used(), applied.wrong());
  }

  @Operation(summary = "Hand in a finished turn; the providers learn from it in the background")
  @JsonRequestBody(ApiRequests.TurnRequest.class)
  @ApiResponse(responseCode = "202", description = "accepted; delivery follows in the background")
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = "/turns", consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<TurnAccepted> turns(
      @PathVariable("agentId") String agentId, @RequestBody(required = false) JsonNode body) {
    String turnId = stack.submit(MemoryRequests.turn(JsonBody.agent(agentId), body, access));
    return ResponseEntity.status(HttpStatus.ACCEPTED).body(new TurnAccepted(turnId));
  }

  /**
   * What the context call would answer to the same body, changing nothing: for a console's recall
   * playground, or to see why an item ranks where it does without teaching the providers anything.
   */
  @RequiresRole(Role.VIEWER)
  @Operation(
      summary =
          "Preview of a context call: the same body and answer, and nothing changes (no recall"
              + " tracking, no morning card claimed, nothing cached)")
  @ApiResponse(
      responseCode = "200",
      description = "what the context call would answer now; no provider, cache or card changed")
  @JsonRequestBody(ApiRequests.ContextRequest.class)
  @PostMapping(path = "/context/preview", consumes = MediaType.APPLICATION_JSON_VALUE)
  public ContextAnswer preview(
      @PathVariable("agentId") String agentId, @RequestBody(required = false) JsonNode body) {
    return contexts.preview(MemoryRequests.context(JsonBody.agent(agentId), body, access));
  }
}
