package dev.memstack.host.console;

import dev.memstack.host.security.AccessPolicy;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * An agent's statistics (every owner's memories and the shared ones; a caller bound to no owner),
 * or one owner's (the owner's personal memories; a caller that covers the owner): memory counts by
 * provider, type and status ({@link AgentStats}), the turns and new memories of the last hour, the
 * host's outbox now, and the chart of the retention ({@link StatsHistory}), whose agent numbers a
 * caller bound to owners does not get. Asking makes the sampler watch the agent. Thread-safe.
 *
 * @param stats reads the numbers, as the current caller
 * @param sampler watches the agent and holds the rows
 */
public record StatsReport(AgentStats stats, StatsSampler sampler) {

  private static final Duration HOUR = Duration.ofHours(1);

  /**
   * The statistics.
   *
   * @param counts the memory counts
   * @param recent the last hour
   * @param outbox the host's outbox now (every agent's and owner's)
   * @param samples one point per interval of the retention, oldest first
   */
  public record StatsView(
      AgentStats.Counts counts,
      Recent recent,
      OutboxView outbox,
      List<StatsHistory.Point> samples) {}

  /**
   * The last hour.
   *
   * @param turnsLastHour turns accepted (of the owner: as the conversation log keeps them; of the
   *     agent: this host's, and the other hosts' as their samples tell)
   * @param memoriesCreatedLastHour memories created
   */
  public record Recent(long turnsLastHour, long memoriesCreatedLastHour) {}

  /**
   * The outbox now.
   *
   * @param pending turns and erasures waiting, every provider's
   * @param deadLetters dead letters kept
   * @param lagSeconds how long the oldest waiting record has waited
   */
  public record OutboxView(long pending, long deadLetters, double lagSeconds) {}

  /**
   * The statistics of {@code agent}, or of {@code owner} when it is not {@code null}.
   *
   * @throws dev.memstack.host.security.AccessDeniedException when the caller may not see them
   */
  public StatsView of(AgentId agent, OwnerKey owner) {
    AccessPolicy access = stats.access();
    if (owner == null) {
      access.requireEveryOwner("the statistics");
    } else {
      access.requireOwner(owner);
    }
    sampler.watch(agent);
    StatsHistory history = sampler.history();
    Instant hourAgo = history.now().minus(HOUR);
    long turns =
        owner == null
            ? stats.activity().lastHour(agent) + history.otherHostsTurnsSince(agent, hourAgo)
            : stats.ownerTurnsSince(agent, owner, hourAgo);
    AgentStats.OutboxNumbers outbox = stats.outbox();
    List<StatsHistory.Point> samples = history.chart(agent);
    if (access.caller().ownerBound()) {
      samples = samples.stream().map(StatsHistory.Point::outboxOnly).toList();
    }
    return new StatsView(
        stats.counts(agent, owner),
        new Recent(turns, stats.createdSince(agent, owner, hourAgo)),
        new OutboxView(outbox.pending(), outbox.deadLetters(), outbox.lagSeconds()),
        samples);
  }
}
