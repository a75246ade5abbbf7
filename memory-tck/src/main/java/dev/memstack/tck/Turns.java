package dev.memstack.tck;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;

/**
 * Builds {@link Turn}s for tests: a random turn id, conversation {@value #CONVERSATION}, trigger
 * source {@link TriggerSource#API}.
 */
public final class Turns {

  /** The conversation id every turn built here belongs to. */
  public static final String CONVERSATION = "c1";

  private Turns() {}

  /** A turn with a random id, timed now by the system clock. */
  public static Turn turn(AgentId agent, OwnerKey owner, String userMessage, String reply) {
    return turn(Clock.systemUTC(), agent, owner, userMessage, reply);
  }

  /** A turn with a random id, timed by {@code clock}. */
  public static Turn turn(
      Clock clock, AgentId agent, OwnerKey owner, String userMessage, String reply) {
    return turn(newTurnId(), clock.instant(), agent, owner, userMessage, reply);
  }

  /** A turn with the given id and time. */
  public static Turn turn(
      String turnId,
      Instant time,
      AgentId agent,
      OwnerKey owner,
      String userMessage,
      String reply) {
    return new Turn(
        turnId, agent, owner, CONVERSATION, userMessage, reply, TriggerSource.API, time);
  }

  /** A fresh random turn id ({@code t-<uuid>}). */
  public static String newTurnId() {
    return "t-" + UUID.randomUUID();
  }
}
