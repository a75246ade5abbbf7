package dev.memstack.host.console;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The rows of a single host, in memory: lost on restart, which the charts of the last hour can
 * afford. Each agent (and the host's own rows) keeps at most {@value #MAX_PER_AGENT} rows, the
 * oldest going first (a week of one a minute is more). Thread-safe.
 */
public final class MemoryStatsSamples implements StatsSamples {

  /** Most rows kept per agent. */
  static final int MAX_PER_AGENT = 10_080;

  private final Map<String, Deque<StatsSample>> byAgent = new HashMap<>();

  @Override
  public synchronized void add(StatsSample sample) {
    Deque<StatsSample> samples = byAgent.computeIfAbsent(sample.agent(), a -> new ArrayDeque<>());
    samples.addLast(sample);
    while (samples.size() > MAX_PER_AGENT) {
      samples.removeFirst();
    }
  }

  @Override
  public synchronized List<StatsSample> since(String agent, Instant from) {
    List<StatsSample> found = new ArrayList<>();
    for (String key : List.of(agent, StatsSample.HOST_ROW)) {
      for (StatsSample sample : byAgent.getOrDefault(key, new ArrayDeque<>())) {
        if (!sample.at().isBefore(from)) {
          found.add(sample);
        }
      }
    }
    found.sort(Comparator.comparing(StatsSample::at));
    return found;
  }

  @Override
  public synchronized long deleteBefore(Instant before) {
    long removed = 0;
    for (Iterator<Deque<StatsSample>> agents = byAgent.values().iterator(); agents.hasNext(); ) {
      Deque<StatsSample> samples = agents.next();
      while (!samples.isEmpty() && samples.getFirst().at().isBefore(before)) {
        samples.removeFirst();
        removed++;
      }
      if (samples.isEmpty()) {
        agents.remove();
      }
    }
    return removed;
  }
}
