package dev.memstack.host.stack;

import dev.memstack.spi.AgentId;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The turns this host accepted ({@link MemoryStack#submit}), per agent: a running total and the
 * counts of each of the last 60 minutes, so that statistics tell recent activity without reading a
 * store. Bounded: at most {@value #MAX_AGENTS} agents are kept, the one accepted from longest ago
 * forgotten first. Thread-safe.
 */
public final class TurnActivity {

  /** Most agents kept. */
  public static final int MAX_AGENTS = 4096;

  private static final int MINUTES = 60;
  private static final long MINUTE_MILLIS = 60_000;

  private final Clock clock;

  /** In access order, so the eldest entry is the agent accepted from longest ago. */
  private final LinkedHashMap<AgentId, Counts> agents =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<AgentId, Counts> eldest) {
          return size() > MAX_AGENTS;
        }
      };

  public TurnActivity(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** One turn of {@code agent} was accepted now. */
  public synchronized void accepted(AgentId agent) {
    long minute = clock.millis() / MINUTE_MILLIS;
    Counts counts = agents.computeIfAbsent(agent, a -> new Counts());
    int slot = (int) Math.floorMod(minute, (long) MINUTES);
    if (counts.minuteOf[slot] != minute) {
      counts.minuteOf[slot] = minute;
      counts.perMinute[slot] = 0;
    }
    counts.perMinute[slot]++;
    counts.total++;
  }

  /** The turns of {@code agent} accepted in the last hour (the current minute and 59 before it). */
  public synchronized long lastHour(AgentId agent) {
    Counts counts = agents.get(agent);
    if (counts == null) {
      return 0;
    }
    long minute = clock.millis() / MINUTE_MILLIS;
    long sum = 0;
    for (int slot = 0; slot < MINUTES; slot++) {
      if (counts.minuteOf[slot] > minute - MINUTES && counts.minuteOf[slot] <= minute) {
        sum += counts.perMinute[slot];
      }
    }
    return sum;
  }

  /** The turns of {@code agent} accepted since start (or since it was last forgotten). */
  public synchronized long total(AgentId agent) {
    Counts counts = agents.get(agent);
    return counts == null ? 0 : counts.total;
  }

  /** The agents kept. */
  public synchronized Set<AgentId> agents() {
    return Set.copyOf(agents.keySet());
  }

  private static final class Counts {
    private long total;
    private final long[] perMinute = new long[MINUTES];
    private final long[] minuteOf = new long[MINUTES];

    private Counts() {
      java.util.Arrays.fill(minuteOf, -1);
    }
  }
}
