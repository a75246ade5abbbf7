package dev.memstack.host.console;

import java.time.Instant;
import java.util.List;

/**
 * Where the rows of {@link StatsSampler} are kept until they are older than {@code
 * memstack.console.stats-retention}: in memory on a single host ({@link MemoryStatsSamples}), in
 * the shared database in shared mode ({@link PostgresStatsSamples}), one row per host and round and
 * one per host, agent and round. Thread-safe.
 */
public interface StatsSamples {

  /** Keeps one row. */
  void add(StatsSample sample);

  /**
   * The rows of {@code agent} and the hosts' own rows taken at or after {@code from}, every host's,
   * oldest first.
   */
  List<StatsSample> since(String agent, Instant from);

  /**
   * Removes the rows taken before {@code before}.
   *
   * @return how many went
   */
  long deleteBefore(Instant before);
}
