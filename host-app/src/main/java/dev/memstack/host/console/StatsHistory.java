package dev.memstack.host.console;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.memstack.spi.AgentId;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The rows {@link StatsSampler} keeps, as the statistics read them: one chart point per interval
 * merged from every host's rows ({@link #chart}), the turns other hosts counted, and the deletion
 * of rows past the retention. Thread-safe.
 *
 * @param samples where the rows are kept
 * @param properties the interval and the retention
 * @param clock the time
 * @param host this host's id in the rows
 */
public record StatsHistory(
    StatsSamples samples, ConsoleProperties properties, Clock clock, String host) {

  /**
   * One point of a chart: the rows of one interval, every host's.
   *
   * @param at the start of the interval
   * @param memories the agent's memories (the largest count of the interval), or {@code null}
   * @param turns the agent's turns accepted in the interval, every host's, or {@code null}
   * @param pending the outbox's waiting records (the largest of the interval), or {@code null}
   * @param deadLetters the dead letters (the largest of the interval), or {@code null}
   * @param delivered the deliveries of the interval, every host's, or {@code null}
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Point(
      Instant at, Long memories, Long turns, Long pending, Long deadLetters, Long delivered) {

    /** This point without the agent's numbers (memories, turns): the outbox alone. */
    public Point outboxOnly() {
      return new Point(at, null, null, pending, deadLetters, delivered);
    }
  }

  /** Now. */
  public Instant now() {
    return clock.instant();
  }

  /** Keeps {@code row}. */
  public void keep(StatsSample row) {
    samples.add(row);
  }

  /** Deletes the rows older than the retention. */
  public void prune() {
    samples.deleteBefore(now().minus(properties.statsRetention()));
  }

  /**
   * The rows of {@code agent} and the hosts' own rows within the retention, merged into one point
   * per interval (its start), oldest first.
   */
  public List<Point> chart(AgentId agent) {
    Instant from = now().minus(properties.statsRetention());
    return merge(samples.since(agent.value(), from), properties.statsSampleInterval());
  }

  /**
   * {@code rows} as one point per {@code interval} (counted from the epoch): the largest memory
   * count, backlog and dead letters of the interval (each host reports the same shared numbers),
   * the sums of its turns and deliveries (each host its own); oldest first.
   */
  static List<Point> merge(List<StatsSample> rows, Duration interval) {
    long millis = interval.toMillis();
    TreeMap<Long, List<StatsSample>> buckets = new TreeMap<>();
    for (StatsSample row : rows) {
      buckets
          .computeIfAbsent(Math.floorDiv(row.at().toEpochMilli(), millis), b -> new ArrayList<>())
          .add(row);
    }
    List<Point> points = new ArrayList<>(buckets.size());
    buckets.forEach(
        (bucket, inBucket) ->
            points.add(
                new Point(
                    Instant.ofEpochMilli(bucket * millis),
                    max(inBucket, StatsSample::memories),
                    sum(inBucket, StatsSample::turns),
                    max(inBucket, StatsSample::pending),
                    max(inBucket, StatsSample::deadLetters),
                    sum(inBucket, StatsSample::delivered))));
    return points;
  }

  /**
   * The turns of {@code agent} that other hosts accepted at or after {@code from}, as their rows
   * tell (up to one interval behind).
   */
  public long otherHostsTurnsSince(AgentId agent, Instant from) {
    long turns = 0;
    for (StatsSample row : samples.since(agent.value(), from)) {
      if (!row.host().equals(host) && row.turns() != null) {
        turns += row.turns();
      }
    }
    return turns;
  }

  private static Long max(List<StatsSample> rows, Function<StatsSample, Long> field) {
    return rows.stream().map(field).filter(v -> v != null).max(Long::compare).orElse(null);
  }

  private static Long sum(List<StatsSample> rows, Function<StatsSample, Long> field) {
    return rows.stream().map(field).filter(v -> v != null).reduce(Long::sum).orElse(null);
  }
}
