package dev.memstack.host.window;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.support.Require;

/**
 * What a window is asked for.
 *
 * @param agent the agent, never {@code null}
 * @param owner the owner whose conversation it is, never {@code null}
 * @param conversationId the conversation, never {@code null}
 * @param systemPrompt the system prompt; {@code null} or blank for none (no system message)
 * @param workspace the workspace files joined as the system prompt carries them; {@code null} or
 *     blank for none
 * @param currentMessage the user message about to be sent, {@code null} when there is none yet
 * @param maxInputTokens the budget of this request, {@code null} for the configured {@code
 *     default-max-input-tokens}
 */
public record WindowRequest(
    AgentId agent,
    OwnerKey owner,
    String conversationId,
    String systemPrompt,
    String workspace,
    String currentMessage,
    Integer maxInputTokens) {

  public WindowRequest {
    Require.nonNull("agent owner conversationId", agent, owner, conversationId);
    systemPrompt = systemPrompt == null ? "" : systemPrompt;
    workspace = workspace == null ? "" : workspace;
    if (maxInputTokens != null && maxInputTokens < 1) {
      throw new IllegalArgumentException(
          "maxInputTokens must be positive (or null for the configured default), got: "
              + maxInputTokens);
    }
  }
}
