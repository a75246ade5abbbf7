package dev.memstack.client;

import java.time.Instant;

/**
 * One of an owner's conversations, as {@code GET /api/v1/agents/{agentId}/conversations} lists it.
 *
 * @param conversationId the conversation
 * @param turns how many turns the host's log keeps of it
 * @param lastTurnAt the time of its newest kept turn
 */
public record ConversationSummary(String conversationId, int turns, Instant lastTurnAt) {}
