package dev.memstack.host.window;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/**
 * A {@link Window} as {@code GET .../conversations/{conversationId}/window}, the context answer's
 * {@code window} and the MCP tool {@code memory_window} show it (JSON schema {@code
 * ConversationWindow}).
 *
 * @param agentId the agent
 * @param ownerKey the owner
 * @param conversationId the conversation
 * @param mode {@code full}, {@code compacted}, {@code sliding}, {@code trimmed} or {@code
 *     emergency}
 * @param counter the token counter: {@code jtokkit:<encoding>} or {@code estimate}
 * @param compacted whether older turns are replaced by the summary
 * @param summary the summary of the older turns, {@code null} when there is none
 * @param tokens the tokens of each part, the budget and the trigger
 * @param messages the messages to send, in order
 */
@Schema(name = "ConversationWindow")
public record WindowView(
    String agentId,
    String ownerKey,
    String conversationId,
    String mode,
    String counter,
    boolean compacted,
    @JsonInclude(JsonInclude.Include.ALWAYS) Summary summary,
    Tokens tokens,
    List<WindowMessage> messages) {

  /** The view of {@code window}, made for {@code request}. */
  public static WindowView of(WindowRequest request, Window window) {
    return new WindowView(
        request.agent().value(),
        request.owner().value(),
        request.conversationId(),
        window.mode(),
        window.counter(),
        window.compacted(),
        window.summary(),
        window.tokens(),
        window.messages());
  }
}
