package dev.memstack.outbox;

import dev.memstack.outbox.journal.CursorStore.ParkedErase;
import dev.memstack.outbox.journal.Journal;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backlog bound of optional providers ({@link ProviderPolicy}): which providers hold turns
 * back, dropping the oldest waiting turns of an optional provider past its {@code max-backlog}, and
 * the count of turns dropped per provider since start (this host's drops over a shared journal).
 *
 * <p>A drop takes turns out of the lane's queue, so that the lane's cursor moves past them and the
 * journal can free them; an erasure among them is parked in the cursor (it still runs, before the
 * turns after it, when the provider returns). Records a lane is delivering right now are left to
 * it.
 */
final class BacklogBounds {

  private static final Logger log = LoggerFactory.getLogger(OutboxEngine.class);

  /** Dropped turns are logged at the first drop and then once per this many. */
  private static final long LOG_EVERY = 10_000;

  private final DeliveryPort port;
  private final Map<String, AtomicLong> dropped = new ConcurrentHashMap<>();

  BacklogBounds(DeliveryPort port) {
    this.port = port;
  }

  /** The provider's policy; {@link ProviderPolicy#REQUIRED} when the port answers none. */
  ProviderPolicy policy(String providerId) {
    ProviderPolicy policy = port.policy(providerId);
    return policy == null ? ProviderPolicy.REQUIRED : policy;
  }

  /** Whether turns waiting for {@code providerId} count against {@code max-pending}. */
  boolean holdsBack(String providerId) {
    return !policy(providerId).optional();
  }

  /** Turns of {@code providerId} dropped since start. */
  long dropped(String providerId) {
    AtomicLong count = dropped.get(providerId);
    return count == null ? 0 : count.get();
  }

  /**
   * Drops the oldest waiting turns of a local lane past its provider's {@code max-backlog}, if the
   * provider is optional; returns how many.
   */
  int trim(Lane lane) {
    ProviderPolicy policy = policy(lane.providerId);
    if (!policy.optional()) {
      return 0;
    }
    int count;
    synchronized (lane) {
      int excess = lane.pendingTurns - policy.maxBacklog();
      if (excess <= 0) {
        return 0;
      }
      long cut = -1;
      int index = 0;
      int inFlight = inFlight(lane);
      for (Journal.Entry entry : lane.queue) {
        if (index++ < inFlight || entry.erase()) {
          continue;
        }
        cut = entry.position() + 1;
        if (--excess == 0) {
          break;
        }
      }
      count = cut < 0 ? 0 : dropBefore(lane, cut);
    }
    counted(lane.providerId, count);
    return count;
  }

  /**
   * Takes the lane's waiting records before {@code cut} out of its queue, parking the erasures
   * among them; returns how many turns were dropped. The caller holds the lane's lock and counts
   * them with {@link #counted}.
   */
  static int dropBefore(Lane lane, long cut) {
    int inFlight = inFlight(lane);
    int index = 0;
    int turns = 0;
    boolean changed = false;
    for (Iterator<Journal.Entry> it = lane.queue.iterator(); it.hasNext(); index++) {
      Journal.Entry entry = it.next();
      if (entry.position() >= cut) {
        break;
      }
      if (index < inFlight) {
        continue;
      }
      it.remove();
      changed = true;
      if (entry.erase()) {
        lane.parked.addLast(new ParkedErase(entry.owner(), entry.acceptedAtMillis()));
      } else {
        turns++;
      }
    }
    lane.pendingTurns -= turns;
    if (changed) {
      lane.unsaved++;
    }
    return turns;
  }

  /** How many records at the head of the lane's queue are in a delivery call now. */
  private static int inFlight(Lane lane) {
    return lane.working ? lane.inFlight : 0;
  }

  /** Counts {@code count} dropped turns of {@code providerId}. */
  void counted(String providerId, int count) {
    if (count <= 0) {
      return;
    }
    long after = dropped.computeIfAbsent(providerId, id -> new AtomicLong()).addAndGet(count);
    long before = after - count;
    if (before == 0 || before / LOG_EVERY != after / LOG_EVERY) {
      log.warn(
          "Optional provider {} has more than memstack.providers.{}.max-backlog ({}) turns"
              + " waiting; its oldest waiting turns are dropped ({} so far)",
          providerId,
          providerId,
          policy(providerId).maxBacklog(),
          after);
    }
  }
}
