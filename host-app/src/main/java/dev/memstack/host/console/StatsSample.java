package dev.memstack.host.console;

import java.time.Instant;
import java.util.Objects;

/**
 * One row a host's {@link StatsSampler} keeps each round: the host's own row (agent {@value
 * #HOST_ROW}: the outbox then) or one agent's row (its memories then and the turns the host
 * accepted for it). The fields the row does not carry are {@code null}.
 *
 * @param host the host that took it
 * @param agent the agent id, or {@value #HOST_ROW} for the host's own row
 * @param at when it was taken
 * @param memories the agent's memories then, in every provider that claims the admin capability
 *     (every owner's and the shared ones); {@code null} in the host's row or when they could not be
 *     counted
 * @param turns the agent's turns this host accepted since its previous row of the agent (the first:
 *     since the host started)
 * @param pending the turns and erasures waiting in the outbox then, every provider's (with the
 *     shared outbox, every host's)
 * @param deadLetters the dead letters kept then
 * @param delivered the deliveries this host made since its previous round
 */
public record StatsSample(
    String host,
    String agent,
    Instant at,
    Long memories,
    Long turns,
    Long pending,
    Long deadLetters,
    Long delivered) {

  /** The agent of a host's own row. */
  public static final String HOST_ROW = "";

  public StatsSample {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(at, "at");
  }

  /** A host's own row: the outbox at {@code at}. */
  public static StatsSample ofHost(
      String host, Instant at, long pending, long deadLetters, long delivered) {
    return new StatsSample(host, HOST_ROW, at, null, null, pending, deadLetters, delivered);
  }

  /** An agent's row. */
  public static StatsSample ofAgent(
      String host, String agent, Instant at, Long memories, long turns) {
    return new StatsSample(host, agent, at, memories, turns, null, null, null);
  }

  /** Whether this is a host's own row. */
  public boolean hostRow() {
    return agent.equals(HOST_ROW);
  }
}
