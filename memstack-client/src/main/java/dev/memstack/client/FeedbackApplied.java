package dev.memstack.client;

import java.util.Map;

/**
 * The answer of {@code POST /api/v1/agents/{agentId}/memory/feedback}: per provider, how many of
 * the ids it applied, or -1 when it takes no feedback of that kind (or its call failed).
 *
 * @param applied for the {@code used} items; empty when the call named none
 * @param wrongApplied for the {@code wrong} items; empty when the call named none
 */
public record FeedbackApplied(Map<String, Integer> applied, Map<String, Integer> wrongApplied) {

  public FeedbackApplied {
    applied = applied == null ? Map.of() : Map.copyOf(applied);
    wrongApplied = wrongApplied == null ? Map.of() : Map.copyOf(wrongApplied);
  }
}
