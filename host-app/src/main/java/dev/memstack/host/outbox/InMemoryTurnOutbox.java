package dev.memstack.host.outbox;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.stack.StackProperties;
import dev.memstack.spi.Turn;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-memory {@link TurnOutbox} ({@code memstack.outbox.type=memory}): one bounded FIFO queue
 * and one daemon delivery thread per provider id, so turns reach each provider in the order they
 * were accepted, one at a time, and a slow, failing or hung provider only holds up its own queue.
 * Delivery looks the provider up by id at delivery time, so a reloaded plugin receives the turns
 * queued before the reload; while no provider of that id is running, or while it throws, the head
 * turn is retried with exponential backoff ({@code memstack.stack.sync.initial-backoff} doubling up
 * to {@code max-backoff}). A turn is only dropped from its queue once the provider accepted it.
 * Caveats: the queues live in memory (turns still queued when the host stops, after a short grace
 * period to drain, are lost), and a turn a provider rejects forever holds up that provider's queue;
 * {@link #stats()} shows both the backlog and the last error.
 */
public final class InMemoryTurnOutbox implements TurnOutbox {

  private static final Logger log = LoggerFactory.getLogger(InMemoryTurnOutbox.class);

  private record Pending(Turn turn, Instant acceptedAt) {}

  private final StackMembers members;
  private final ProviderCalls calls;
  private final StackProperties.Sync settings;
  private final Clock clock;
  private final Map<String, Lane> lanes = new ConcurrentHashMap<>();
  private final Object enqueueLock = new Object();
  private volatile boolean closed;
  private volatile boolean stopped;

  public InMemoryTurnOutbox(
      StackMembers members, ProviderCalls calls, StackProperties.Sync settings) {
    this(members, calls, settings, Clock.systemUTC());
  }

  public InMemoryTurnOutbox(
      StackMembers members, ProviderCalls calls, StackProperties.Sync settings, Clock clock) {
    this.members = Objects.requireNonNull(members, "members");
    this.calls = Objects.requireNonNull(calls, "calls");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public void enqueue(Turn turn, List<String> providerIds) {
    Objects.requireNonNull(turn, "turn");
    Objects.requireNonNull(providerIds, "providerIds");
    Pending pending = new Pending(turn, clock.instant());
    // One lock for all enqueues: capacity is checked for every queue before any is changed, and
    // delivery only ever shrinks a queue, so the check still holds when the turn is added.
    synchronized (enqueueLock) {
      if (closed) {
        throw new IllegalStateException("the turn outbox is closed");
      }
      List<Lane> targets = new ArrayList<>(providerIds.size());
      for (String id : providerIds) {
        Lane lane = lanes.computeIfAbsent(id, Lane::new);
        if (lane.size() >= settings.queueCapacity()) {
          throw new TurnOutboxFullException(id, settings.queueCapacity());
        }
        targets.add(lane);
      }
      for (Lane lane : targets) {
        lane.add(pending);
      }
    }
  }

  @Override
  public Map<String, OutboxStats> stats() {
    Instant now = clock.instant();
    Map<String, OutboxStats> stats = new LinkedHashMap<>();
    lanes.keySet().stream().sorted().forEach(id -> stats.put(id, lanes.get(id).stats(now)));
    return stats;
  }

  /**
   * Refuses new turns, gives the queues up to {@code memstack.stack.sync.shutdown-grace} to drain,
   * then stops the delivery threads; turns still queued then are lost (logged with their count).
   */
  @Override
  public void close() {
    synchronized (enqueueLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    long graceUntil = System.nanoTime() + settings.shutdownGrace().toNanos();
    while (System.nanoTime() < graceUntil && lanes.values().stream().anyMatch(l -> l.size() > 0)) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    stopped = true;
    for (Lane lane : lanes.values()) {
      lane.stop();
    }
    long joinUntil = System.nanoTime() + Duration.ofSeconds(1).toNanos();
    for (Lane lane : lanes.values()) {
      lane.join(joinUntil);
      int left = lane.size();
      if (left > 0) {
        log.warn(
            "{} turns for provider {} were not delivered before shutdown", left, lane.providerId);
      }
    }
  }

  /** The queue and delivery thread of one provider id. */
  private final class Lane implements Runnable {

    private final String providerId;
    private final Deque<Pending> queue = new ArrayDeque<>();
    private final Thread worker;
    private long delivered;
    private long failedAttempts;
    private String lastError;

    Lane(String providerId) {
      this.providerId = providerId;
      this.worker = new Thread(this, "memstack-sync-" + providerId);
      worker.setDaemon(true);
      worker.start();
    }

    synchronized int size() {
      return queue.size();
    }

    synchronized void add(Pending pending) {
      queue.addLast(pending);
      notifyAll();
    }

    synchronized OutboxStats stats(Instant now) {
      Pending oldest = queue.peekFirst();
      Duration age = oldest == null ? Duration.ZERO : Duration.between(oldest.acceptedAt(), now);
      return new OutboxStats(
          queue.size(),
          age.isNegative() ? Duration.ZERO : age,
          delivered,
          failedAttempts,
          lastError);
    }

    void stop() {
      worker.interrupt();
    }

    void join(long untilNanos) {
      long left = untilNanos - System.nanoTime();
      if (left > 0) {
        try {
          worker.join(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void run() {
      int failuresInARow = 0;
      while (!stopped) {
        Pending next;
        try {
          next = awaitHead();
        } catch (InterruptedException e) {
          return;
        }
        String failure = deliver(next.turn());
        if (failure == null) {
          synchronized (this) {
            queue.pollFirst();
            delivered++;
          }
          failuresInARow = 0;
          continue;
        }
        failuresInARow++;
        Duration backoff = backoff(failuresInARow);
        synchronized (this) {
          failedAttempts++;
          lastError = failure;
        }
        log.warn(
            "Delivering turn {} to provider {} failed ({}); retrying in {} ms",
            next.turn().turnId(),
            providerId,
            failure,
            backoff.toMillis());
        try {
          Thread.sleep(backoff.toMillis());
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private synchronized Pending awaitHead() throws InterruptedException {
      while (queue.isEmpty()) {
        wait();
      }
      return queue.peekFirst();
    }

    /** Delivers one turn; {@code null} when the provider took it, otherwise why not. */
    private String deliver(Turn turn) {
      Optional<StackMember> member = members.find(providerId);
      if (member.isEmpty()) {
        return "provider " + providerId + " is not running";
      }
      StackMember m = member.get();
      try {
        calls.run(m, ProviderCalls.SYNC_TURN, () -> m.provider().syncTurn(turn));
        return null;
      } catch (Throwable e) {
        if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
          throw (VirtualMachineError) e;
        }
        return e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
      }
    }

    private Duration backoff(int failuresInARow) {
      Duration max = settings.maxBackoff();
      Duration wait = settings.initialBackoff();
      for (int i = 1; i < failuresInARow && wait.compareTo(max) < 0; i++) {
        wait = wait.multipliedBy(2);
      }
      return wait.compareTo(max) > 0 ? max : wait;
    }
  }
}
