package dev.memstack.tck;

import dev.memstack.spi.Coordination;
import dev.memstack.spi.ProviderUnavailableException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link Coordination} for tests that looks like the one of a host in shared mode ({@link
 * #shared()} is {@code true} unless built with {@link #inProcess}) and answers from one {@link
 * Coordination#local} on the given clock, so several providers built with the same instance act
 * like the same instance on several hosts. It records every call ({@link #claims()}, {@link
 * #locksTaken()}, {@link #cooldownsStarted()}) and which leases are still held ({@link #held()}),
 * and can refuse everything as an unreachable shared database does ({@link #refuseAll}: every call
 * throws {@link ProviderUnavailableException}). Thread-safe.
 */
public final class RecordingCoordination implements Coordination {

  private final Coordination local;
  private final boolean shared;
  private final List<String> claims = Collections.synchronizedList(new ArrayList<>());
  private final List<String> locksTaken = Collections.synchronizedList(new ArrayList<>());
  private final List<String> cooldowns = Collections.synchronizedList(new ArrayList<>());
  private final Set<String> held = ConcurrentHashMap.newKeySet();
  private volatile boolean refusing;

  private RecordingCoordination(Clock clock, boolean shared) {
    this.local = Coordination.local(Objects.requireNonNull(clock, "clock"));
    this.shared = shared;
  }

  /** One that says it spans hosts, on {@code clock}. */
  public static RecordingCoordination shared(Clock clock) {
    return new RecordingCoordination(clock, true);
  }

  /** One that says it answers for this process only, on {@code clock}. */
  public static RecordingCoordination inProcess(Clock clock) {
    return new RecordingCoordination(clock, false);
  }

  /**
   * From now on every call throws {@link ProviderUnavailableException} ({@code false}: answers).
   */
  public RecordingCoordination refuseAll(boolean refuse) {
    this.refusing = refuse;
    return this;
  }

  @Override
  public boolean shared() {
    return shared;
  }

  @Override
  public boolean claimRun(String job, String slot) {
    refuseIfAsked("claimRun " + job);
    boolean claimed = local.claimRun(job, slot);
    claims.add(job + "@" + slot + (claimed ? "" : " (taken)"));
    return claimed;
  }

  @Override
  public Optional<Lease> tryLock(String name, Duration lease) {
    refuseIfAsked("tryLock " + name);
    Optional<Lease> taken = local.tryLock(name, lease);
    if (taken.isEmpty()) {
      return taken;
    }
    locksTaken.add(name);
    held.add(name);
    Lease inner = taken.get();
    return Optional.of(
        new Lease() {
          @Override
          public boolean renew() {
            refuseIfAsked("renew " + name);
            return inner.renew();
          }

          @Override
          public void close() {
            held.remove(name);
            inner.close();
          }
        });
  }

  @Override
  public boolean tryStartCooldown(String key, Duration cooldown) {
    refuseIfAsked("tryStartCooldown " + key);
    boolean started = local.tryStartCooldown(key, cooldown);
    if (started) {
      cooldowns.add(key);
    }
    return started;
  }

  @Override
  public long addAndGet(String counter, long delta) {
    refuseIfAsked("addAndGet " + counter);
    return local.addAndGet(counter, delta);
  }

  /** Every run claim so far, {@code job@slot}, with {@code (taken)} when it was refused. */
  public List<String> claims() {
    synchronized (claims) {
      return List.copyOf(claims);
    }
  }

  /** The name of every lock taken so far, in order. */
  public List<String> locksTaken() {
    synchronized (locksTaken) {
      return List.copyOf(locksTaken);
    }
  }

  /** The key of every cooldown started so far, in order. */
  public List<String> cooldownsStarted() {
    synchronized (cooldowns) {
      return List.copyOf(cooldowns);
    }
  }

  /** The names of the locks taken and not yet closed. */
  public Set<String> held() {
    return Set.copyOf(held);
  }

  private void refuseIfAsked(String what) {
    if (refusing) {
      throw new ProviderUnavailableException(
          "coordination refused (" + what + "): the shared database is unreachable in this test");
    }
  }

  @Override
  public String toString() {
    return "RecordingCoordination[shared=" + shared + ", refusing=" + refusing + "]";
  }
}
