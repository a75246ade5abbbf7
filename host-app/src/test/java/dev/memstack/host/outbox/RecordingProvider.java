package dev.memstack.host.outbox;

import dev.memstack.host.testing.SilentProvider;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.Turn;
import dev.memstack.spi.TurnRejectedException;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A provider that remembers every turn and erasure it took, in order, and can be told to fail (like
 * a backend that is down) or to be slow. Stores a turn once per owner and turn id, as real
 * providers must (the same id of two owners is two turns).
 */
class RecordingProvider extends SilentProvider {

  private final boolean canForget;
  final List<String> events = new CopyOnWriteArrayList<>();
  final List<Turn> stored = new CopyOnWriteArrayList<>();
  final List<String> received = new CopyOnWriteArrayList<>();
  final AtomicInteger syncAttempts = new AtomicInteger();
  final AtomicInteger forgetAttempts = new AtomicInteger();
  final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
  volatile boolean failing;

  /** Whether every call throws {@link ProviderUnavailableException} (its backend is known down). */
  volatile boolean unavailable;

  volatile long delayMillis;

  /** Whether it claims {@link Capability#BATCH_SYNC}. */
  volatile boolean batches;

  /** A turn id whose delivery fails: always inside a batch, alone while poisonFailures last. */
  volatile String poison;

  final AtomicInteger poisonFailures = new AtomicInteger();

  /** Turn ids it rejects for good ({@link TurnRejectedException}), alone or in a batch. */
  final Set<String> rejected = java.util.concurrent.ConcurrentHashMap.newKeySet();

  RecordingProvider(String id, boolean canForget) {
    super(id);
    this.canForget = canForget;
  }

  RecordingProvider(String id) {
    this(id, true);
  }

  /** A provider that fails every delivery (a backend that is down) until told otherwise. */
  static RecordingProvider down(String id) {
    RecordingProvider provider = new RecordingProvider(id);
    provider.failing = true;
    return provider;
  }

  @Override
  public Set<Capability> capabilities() {
    Set<Capability> capabilities = EnumSet.noneOf(Capability.class);
    if (canForget) {
      capabilities.add(Capability.FORGET);
    }
    if (batches) {
      capabilities.add(Capability.BATCH_SYNC);
    }
    return capabilities;
  }

  @Override
  public synchronized void syncTurns(List<Turn> turns) {
    batchSizes.add(turns.size());
    if (turns.stream().anyMatch(t -> rejected.contains(t.turnId()))) {
      throw new TurnRejectedException("the batch holds a turn this provider refuses");
    }
    if (turns.stream().anyMatch(t -> t.turnId().equals(poison))) {
      throw new IllegalStateException("the batch holds " + poison);
    }
    for (Turn turn : turns) {
      syncTurn(turn);
    }
  }

  @Override
  public synchronized void syncTurn(Turn turn) {
    syncAttempts.incrementAndGet();
    if (unavailable) {
      throw new ProviderUnavailableException("backend down; next try in 1 s");
    }
    if (rejected.contains(turn.turnId())) {
      throw new TurnRejectedException("turn " + turn.turnId() + " can never be stored here");
    }
    if (turn.turnId().equals(poison) && poisonFailures.getAndDecrement() > 0) {
      throw new IllegalStateException("cannot store " + poison);
    }
    if (failing) {
      throw new IllegalStateException("backend unreachable at https://svc/?api_key=s3cret");
    }
    if (delayMillis > 0) {
      try {
        Thread.sleep(delayMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted");
      }
    }
    received.add(turn.turnId());
    if (stored.stream()
        .noneMatch(t -> t.turnId().equals(turn.turnId()) && t.owner().equals(turn.owner()))) {
      stored.add(turn);
      events.add("turn:" + turn.turnId());
    }
  }

  @Override
  public synchronized long forget(OwnerKey owner) {
    forgetAttempts.incrementAndGet();
    if (failing) {
      throw new IllegalStateException("backend unreachable");
    }
    long removed = stored.stream().filter(t -> t.owner().equals(owner)).count();
    stored.removeIf(t -> t.owner().equals(owner));
    events.add("forget:" + owner.value());
    return removed;
  }

  List<String> storedIds() {
    return stored.stream().map(Turn::turnId).toList();
  }
}
