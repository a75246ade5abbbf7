package dev.memstack.host.conversation;

import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.Objects;

/**
 * One of an owner's conversations as {@link ConversationLog#conversations} lists it and {@code GET
 * .../conversations} shows it.
 *
 * @param conversationId the conversation id, never {@code null}
 * @param turns how many turns the log keeps of it, at least 1
 * @param lastTurnAt the time of its newest kept turn, never {@code null}
 */
@Schema(name = "ConversationSummary")
public record ConversationSummary(String conversationId, int turns, Instant lastTurnAt) {

  public ConversationSummary {
    Objects.requireNonNull(conversationId, "conversationId");
    Objects.requireNonNull(lastTurnAt, "lastTurnAt");
  }
}
