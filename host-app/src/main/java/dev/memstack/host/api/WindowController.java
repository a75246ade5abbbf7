package dev.memstack.host.api;

import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.host.window.ConversationWindows;
import dev.memstack.host.window.WindowView;
import dev.memstack.spi.AgentId;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/agents/{agentId}/conversations/{conversationId}/window?ownerKey=
 * [&maxInputTokens=]}: the conversation window to send next for one owner's conversation — the
 * summary of older turns (if any) and the recent turns, within the budget, without a system prompt
 * or current message (the context call with {@code "window": true} adds those). A conversation
 * without turns answers an empty window. Needs {@code viewer}; the owner rules are those of the
 * conversation route: the token must cover {@code ownerKey} (403), and only a token bound to one
 * owner key may leave it out (400 naming {@code ownerKey} otherwise). {@code maxInputTokens} out of
 * 256-100,000,000 answers 400 naming it.
 */
@RestController
@RequestMapping(
    path = "/api/v1/agents/{agentId}/conversations",
    produces = MediaType.APPLICATION_JSON_VALUE)
public class WindowController {

  private final ConversationWindows windows;
  private final AccessPolicy access;

  public WindowController(ConversationWindows windows, AccessPolicy access) {
    this.windows = windows;
    this.access = access;
  }

  @Operation(
      summary =
          "The conversation window to send next: summary of older turns and recent turns within"
              + " the token budget")
  @RequiresRole(Role.VIEWER)
  @GetMapping(path = "/{conversationId}/window")
  public WindowView window(
      @PathVariable("agentId") String agentId,
      @PathVariable("conversationId") String conversationId,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @Parameter(
              description =
                  "The token budget of this window, 256-100000000; absent:"
                      + " memstack.window.default-max-input-tokens",
              schema = @Schema(type = "integer", minimum = "256", maximum = "100000000"))
          @RequestParam(name = "maxInputTokens", required = false)
          String maxInputTokens) {
    AgentId agent = JsonBody.agent(agentId);
    return WindowRequests.window(
        windows, agent, WindowRequests.owner(ownerKey, access), conversationId, maxInputTokens);
  }
}
