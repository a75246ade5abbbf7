package dev.memstack.host.console;

import dev.memstack.host.security.Caller;
import dev.memstack.host.security.Role;
import dev.memstack.host.stack.TurnActivity;
import dev.memstack.spi.AgentId;
import dev.memstack.support.DaemonThreads;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host job behind the console's charts: every {@code memstack.console.stats-sample-interval} (1
 * minute) it keeps one row of the outbox (pending, dead letters, deliveries since the last round)
 * and one row per agent it watches (the agent's memories in every provider that claims the admin
 * capability, and the turns this host accepted for it since its last row), then deletes the rows
 * older than {@code memstack.console.stats-retention} (1 hour) ({@link StatsHistory}). It watches
 * the agents whose statistics were asked for within the retention and those this host accepted
 * turns of in the last hour, at most {@value #MAX_AGENTS} per round (the most recently asked
 * first). Its tool calls run as the caller {@value #CALLER}, an admin bound to no owner. A failed
 * round is logged and the next one runs on time.
 */
public final class StatsSampler implements AutoCloseable {

  /** The name the sampler's tool calls carry (their actor). */
  public static final String CALLER = "memstack.console.stats-sampler";

  /** Most agents sampled per round. */
  static final int MAX_AGENTS = 256;

  private static final Logger log = LoggerFactory.getLogger(StatsSampler.class);

  private final AgentStats stats;
  private final StatsHistory history;

  /** When each watched agent's statistics were last asked for. */
  private final Map<AgentId, Instant> watched = new ConcurrentHashMap<>();

  /** The turn total of each sampled agent at its last row (sampler thread only). */
  private final Map<AgentId, Long> turnTotals = new HashMap<>();

  private long lastDelivered;
  private ScheduledExecutorService executor;

  public StatsSampler(AgentStats stats, StatsHistory history) {
    this.stats = stats;
    this.history = history;
  }

  /** Starts the rounds: the first one interval from now. */
  public synchronized void start() {
    if (executor != null) {
      return;
    }
    lastDelivered = stats.outbox().delivered();
    executor =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("memstack-console-stats"));
    long period = history.properties().statsSampleInterval().toMillis();
    executor.scheduleWithFixedDelay(this::round, period, period, TimeUnit.MILLISECONDS);
  }

  /** {@code agent}'s statistics were asked for: it is sampled for the retention from now. */
  public void watch(AgentId agent) {
    watched.put(agent, history.now());
    if (watched.size() > MAX_AGENTS * 4) {
      forgetWatchesBefore(history.now().minus(history.properties().statsRetention()));
    }
  }

  /** The rows, as the statistics read them. */
  public StatsHistory history() {
    return history;
  }

  /** One round, now; the scheduled rounds call it. Failures are logged. */
  void round() {
    try {
      stats.access().actingAs(new Caller(CALLER, Role.ADMIN, null), this::sample);
    } catch (RuntimeException e) {
      log.warn("The console's statistics could not be sampled: {}", e.toString());
    }
  }

  private synchronized Void sample() {
    Instant now = history.now();
    AgentStats.OutboxNumbers outbox = stats.outbox();
    long delivered = Math.max(0, outbox.delivered() - lastDelivered);
    lastDelivered = outbox.delivered();
    history.keep(
        StatsSample.ofHost(history.host(), now, outbox.pending(), outbox.deadLetters(), delivered));
    for (AgentId agent : agents(now)) {
      Long memories = null;
      if (watched.containsKey(agent)) {
        // counting reads every provider's index or files: only for the agents someone watches
        try {
          memories = stats.counts(agent, null).total();
        } catch (RuntimeException e) {
          log.debug("The memories of agent {} could not be counted: {}", agent, e.toString());
        }
      }
      long total = stats.activity().total(agent);
      Long before = turnTotals.put(agent, total);
      long turns = before == null || before > total ? total : total - before;
      history.keep(StatsSample.ofAgent(history.host(), agent.value(), now, memories, turns));
    }
    history.prune();
    return null;
  }

  /** The agents of this round: the most recently asked for first, then the recently active. */
  private Set<AgentId> agents(Instant now) {
    forgetWatchesBefore(now.minus(history.properties().statsRetention()));
    Set<AgentId> chosen = new LinkedHashSet<>();
    watched.entrySet().stream()
        .sorted(Map.Entry.<AgentId, Instant>comparingByValue().reversed())
        .limit(MAX_AGENTS)
        .forEach(e -> chosen.add(e.getKey()));
    TurnActivity activity = stats.activity();
    activity.agents().stream()
        .sorted(Comparator.comparing(AgentId::value))
        .filter(agent -> activity.lastHour(agent) > 0)
        .forEach(
            agent -> {
              if (chosen.size() < MAX_AGENTS) {
                chosen.add(agent);
              }
            });
    if (turnTotals.size() > TurnActivity.MAX_AGENTS) {
      turnTotals.keySet().retainAll(activity.agents());
    }
    return chosen;
  }

  private void forgetWatchesBefore(Instant cutoff) {
    watched.values().removeIf(at -> at.isBefore(cutoff));
  }

  @Override
  public synchronized void close() {
    if (executor != null) {
      executor.shutdownNow();
    }
  }
}
