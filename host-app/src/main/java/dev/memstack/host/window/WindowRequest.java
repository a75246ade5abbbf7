package dev.memstack.host.window;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;

/** What a window is built for. */
public record WindowRequest(
    AgentId agent,
    OwnerKey owner,
    String conversationId,
    String systemPrompt,
    String workspace,
    String currentMessage,
    Integer maxInputTokens) {}
