package dev.memstack.spi;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What a provider needs to agree with the same provider on other hosts: one run per schedule, locks
 * with leases, cooldowns and atomic counters. On one host (the default) everything is in process;
 * when the hosts share a database ({@code memstack.shared.jdbc-url}) the host backs the same
 * methods with that database, so a plugin coordinates without a JDBC driver of its own.
 *
 * <p>Names are free text chosen by the provider (say {@code "dreaming:" + agent}); the host keeps
 * each instance's names apart, so two instances never share a lock or a counter. Implementations
 * are thread-safe; a call that cannot reach the shared database throws {@link
 * ProviderUnavailableException}, so the caller skips this round and tries again at the next one.
 * Arguments are never {@code null}; durations are positive. Times (leases, cooldowns) are measured
 * by one clock for every host: the provider's clock in process, the database's clock when shared,
 * so hosts whose clocks differ still agree.
 *
 * <p>What to use it for: a scheduled job calls {@link #claimRun} with its fire time and runs only
 * on {@code true}; work that must not run twice at once for one key (an owner's extraction) takes
 * {@link #tryLock} and skips when empty; "at most once every N minutes" is {@link
 * #tryStartCooldown}; a count that several hosts raise is {@link #addAndGet}, never a read and a
 * write.
 *
 * @since 0.3.0
 */
public interface Coordination {

  /** Whether these answers hold across several hosts ({@code false}: this process only). */
  boolean shared();

  /**
   * Claims one run of a scheduled job: of every caller across the hosts that asks for the same
   * {@code job} and {@code slot} (say the scheduled fire time, {@code "2026-12-01T03:00Z"}),
   * exactly one gets {@code true}; claims are remembered for at least a day.
   */
  boolean claimRun(String job, String slot);

  /**
   * Takes a lock if nobody holds it; empty when someone does. A holder that dies without closing it
   * loses it when {@code lease} has passed since it was taken or last renewed.
   */
  Optional<Lease> tryLock(String name, Duration lease);

  /**
   * Starts a cooldown named {@code key} if none is running: {@code true} when this caller started
   * it (and may act), {@code false} while an earlier one, from any host, has not yet passed.
   */
  boolean tryStartCooldown(String key, Duration cooldown);

  /**
   * Adds {@code delta} to a counter (absent counters are zero) at once and returns the new value.
   */
  long addAndGet(String counter, long delta);

  /** A held lock. */
  interface Lease extends AutoCloseable {

    /**
     * Extends the lease by its duration; {@code false} when it was lost (expired and taken). A
     * holder of a long task renews well before the lease passes.
     *
     * @throws ProviderUnavailableException when the shared database cannot be reached
     */
    boolean renew();

    /**
     * Releases the lock; idempotent, never throws (a release that cannot reach the shared database
     * is logged, and the lease expires by itself).
     */
    @Override
    void close();
  }

  /** Coordination within this process only, on {@code clock}: what a single host uses. */
  static Coordination local(Clock clock) {
    return new LocalCoordination(Objects.requireNonNull(clock, "clock"));
  }
}
