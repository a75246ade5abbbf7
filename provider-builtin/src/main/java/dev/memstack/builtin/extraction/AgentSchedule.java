package dev.memstack.builtin.extraction;

import dev.memstack.builtin.concurrent.DaemonThreads;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.support.CoordinatedWork;
import dev.memstack.support.CronSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the scheduled jobs over an agent ({@link Dreaming}, {@link StructuredConsolidation}) share:
 * a next time per agent by a cron schedule, checked by one daemon thread every {@code
 * schedule-check-interval}; one run of an agent at a time on this host (a second one finds it
 * running and does not wait); the agent's last run; and the owners a run continues with. Across
 * hosts ({@link Coordination#shared()}) a run holds the lock {@code <job>:<agent>} (a lease of the
 * model timeout plus 30 s, renewed before each further bucket), a scheduled run then claims its
 * slot (its fire time) under that name, and the owners continue from the shared counter {@code
 * <job>-owners:<agent>}. Nothing runs without a chat model. Thread-safe; {@link #close()} stops the
 * thread.
 *
 * @param <R> the job's record of one run
 */
final class AgentSchedule<R> implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AgentSchedule.class);

  /** A run, or none; {@code unreachable} when the coordination could not be asked. */
  record Attempt<R>(Optional<R> run, boolean unreachable) {

    static <R> Attempt<R> none() {
      return new Attempt<>(Optional.empty(), false);
    }

    static <R> Attempt<R> unreachableCoordination() {
      return new Attempt<>(Optional.empty(), true);
    }
  }

  private final MemoryJobParts parts;
  private final String job;
  private final String label;
  private final boolean enabled;
  private final CronSchedule cron;
  private final Map<AgentId, Instant> nextRuns = new ConcurrentHashMap<>();
  private final Map<AgentId, R> lastRuns = new ConcurrentHashMap<>();
  private final Map<AgentId, String> ownerCursors = new ConcurrentHashMap<>();
  private final Map<AgentId, ReentrantLock> locks = new ConcurrentHashMap<>();
  private volatile ScheduledExecutorService scheduler;

  /**
   * @param job the name of the lock, the slots and the owner counter across hosts
   * @param label what the log calls the job
   * @param enabled whether the schedule is on
   * @param cron the schedule, in the clock's zone
   */
  AgentSchedule(
      MemoryJobParts parts, String job, String label, boolean enabled, CronSchedule cron) {
    this.parts = Objects.requireNonNull(parts, "parts");
    this.job = Objects.requireNonNull(job, "job");
    this.label = Objects.requireNonNull(label, "label");
    this.enabled = enabled;
    this.cron = Objects.requireNonNull(cron, "cron");
  }

  /**
   * Starts the thread named {@code threadName} that calls {@code tick} (when the schedule is on).
   */
  synchronized void start(String threadName, Runnable tick) {
    if (!enabled || scheduler != null) {
      return;
    }
    ScheduledExecutorService thread =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(threadName));
    long every = parts.settings().scheduleCheckInterval().toMillis();
    thread.scheduleWithFixedDelay(
        () -> {
          try {
            tick.run();
          } catch (RuntimeException e) {
            log.warn("{} schedule check failed: {}", label, e.toString());
          }
        },
        every,
        every,
        TimeUnit.MILLISECONDS);
    scheduler = thread;
  }

  /**
   * Runs every agent whose scheduled time has come by the clock, as {@link #attempt} with its slot;
   * an agent seen for the first time gets its next time. Does nothing when the schedule is off or
   * no chat model is configured.
   *
   * @param work an agent's scheduled run, given the lease renewal
   * @param ran told of each run done
   * @return how many agents ran
   */
  int tick(BiFunction<AgentId, Runnable, R> work, BiConsumer<AgentId, R> ran) {
    if (!enabled || !parts.model().available()) {
      return 0;
    }
    Instant now = parts.clock().instant();
    int count = 0;
    for (AgentId agent : parts.files().agents()) {
      Instant next = nextRuns.computeIfAbsent(agent, a -> nextAfter(now));
      if (!now.isBefore(next)) {
        Attempt<R> attempt = attempt(agent, next.toString(), renew -> work.apply(agent, renew));
        if (attempt.unreachable()) {
          continue; // the same slot at the next check, so still once per schedule
        }
        nextRuns.put(agent, nextAfter(now));
        if (attempt.run().isPresent()) {
          count++;
          ran.accept(agent, attempt.run().get());
        }
      }
    }
    return count;
  }

  private Instant nextAfter(Instant time) {
    return cron.next(time.atZone(parts.clock().getZone())).toInstant();
  }

  /**
   * Runs {@code work} for the agent unless a run of it is in progress here or (across hosts) holds
   * its lock elsewhere. A scheduled run across hosts also claims {@code slot}, after it holds the
   * lock and before it reads anything: of the hosts that see the slot, the first to hold the lock
   * runs it and the others find it claimed. A slot that passes while another host holds the lock (a
   * run in progress, or a host that died in one, until the lease passes) is skipped, as a single
   * host skips a slot while it still runs. The run done becomes the agent's last run.
   *
   * @param slot the scheduled fire time, or {@code null} for a run by hand
   * @param work the run, given what renews the lease (to call before each further bucket)
   */
  Attempt<R> attempt(AgentId agent, String slot, Function<Runnable, R> work) {
    if (!parts.model().available()) {
      return Attempt.none();
    }
    ReentrantLock lock = locks.computeIfAbsent(agent, a -> new ReentrantLock());
    if (!lock.tryLock()) {
      return Attempt.none();
    }
    Coordination.Lease shared = null;
    try {
      Coordination coordination = parts.coordination();
      if (coordination.shared()) {
        try {
          shared = coordination.tryLock(job + ":" + agent.value(), lease()).orElse(null);
        } catch (ProviderUnavailableException e) {
          log.warn("{} of agent {} not started: {}", label, agent, e.getMessage());
          return Attempt.unreachableCoordination();
        }
        if (shared == null) {
          return Attempt.none(); // running on another host
        }
        if (slot != null) {
          boolean claimed;
          try {
            claimed = coordination.claimRun(job + ":" + agent.value(), slot);
          } catch (ProviderUnavailableException e) {
            log.warn("{} of agent {} at {} not started: {}", label, agent, slot, e.getMessage());
            return Attempt.unreachableCoordination();
          }
          if (!claimed) {
            log.debug("{} of agent {} at {}: run by another host", label, agent, slot);
            return Attempt.none();
          }
        }
      }
      Coordination.Lease held = shared;
      R run = work.apply(() -> renew(held, agent));
      lastRuns.put(agent, run);
      return new Attempt<>(Optional.of(run), false);
    } finally {
      if (shared != null) {
        shared.close();
      }
      lock.unlock();
    }
  }

  /**
   * A lease long enough for one bucket (its model call and its writes); renewed before each further
   * bucket, so a host that dies in a run holds the agent's job for at most this long.
   */
  private Duration lease() {
    return parts.settings().modelTimeout().plusSeconds(30);
  }

  private void renew(Coordination.Lease lease, AgentId agent) {
    if (lease == null) {
      return;
    }
    try {
      if (!lease.renew()) {
        log.warn("{} of agent {}: the lock's lease passed during the run", label, agent);
      }
    } catch (ProviderUnavailableException e) {
      log.debug("{} of agent {}: lease not renewed: {}", label, agent, e.getMessage());
    }
  }

  /**
   * The owners of the agent to go through this run, at most {@code max} of them (0: all),
   * continuing after the last owner of the previous run: across hosts the hosts take turns on the
   * shared counter, on one host (or while the coordination cannot be reached) by this host's
   * cursor.
   */
  List<OwnerKey> ownersThisRun(AgentId agent, int max) {
    List<OwnerKey> owners = parts.files().owners(agent);
    if (max == 0 || owners.size() <= max) {
      return owners;
    }
    if (parts.coordination().shared()) {
      try {
        return CoordinatedWork.turn(
            parts.coordination(), job + "-owners:" + agent.value(), owners, max);
      } catch (ProviderUnavailableException e) {
        log.debug("{} of agent {}: this host's owner cursor: {}", label, agent, e.getMessage());
      }
    }
    String cursor = ownerCursors.get(agent);
    int start = 0;
    if (cursor != null) {
      while (start < owners.size() && owners.get(start).value().compareTo(cursor) <= 0) {
        start++;
      }
      if (start >= owners.size()) {
        start = 0;
      }
    }
    List<OwnerKey> chosen = CoordinatedWork.window(owners, start, max);
    ownerCursors.put(agent, chosen.get(chosen.size() - 1).value());
    return chosen;
  }

  /** The agent's last run since the provider started. */
  Optional<R> lastRun(AgentId agent) {
    return Optional.ofNullable(lastRuns.get(agent));
  }

  /** The agent's next scheduled run, or empty when the schedule is off or has no model. */
  Optional<Instant> nextRun(AgentId agent) {
    if (!enabled || !parts.model().available()) {
      return Optional.empty();
    }
    return Optional.of(nextRuns.getOrDefault(agent, nextAfter(parts.clock().instant())));
  }

  @Override
  public void close() {
    DaemonThreads.stop(scheduler);
  }
}
