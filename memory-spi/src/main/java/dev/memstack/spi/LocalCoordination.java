package dev.memstack.spi;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** {@link Coordination} inside one process: maps guarded by their own atomicity. */
final class LocalCoordination implements Coordination {

  private static final Duration CLAIMS_KEPT = Duration.ofDays(2);

  private final Clock clock;
  private final Map<String, Instant> claims = new ConcurrentHashMap<>();
  private final Map<String, Holder> locks = new ConcurrentHashMap<>();
  private final Map<String, Instant> cooldowns = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();

  LocalCoordination(Clock clock) {
    this.clock = clock;
  }

  @Override
  public boolean shared() {
    return false;
  }

  @Override
  public boolean claimRun(String job, String slot) {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(slot, "slot");
    Instant now = clock.instant();
    claims.values().removeIf(at -> at.plus(CLAIMS_KEPT).isBefore(now));
    return claims.putIfAbsent(job + "\u0000" + slot, now) == null;
  }

  @Override
  public Optional<Lease> tryLock(String name, Duration lease) {
    Objects.requireNonNull(name, "name");
    requirePositive(lease, "lease");
    Holder mine = new Holder(name, lease);
    Holder now =
        locks.compute(
            name, (key, held) -> held == null || held.expired(clock.instant()) ? mine : held);
    return now == mine ? Optional.of(mine) : Optional.empty();
  }

  @Override
  public boolean tryStartCooldown(String key, Duration cooldown) {
    Objects.requireNonNull(key, "key");
    requirePositive(cooldown, "cooldown");
    Instant now = clock.instant();
    Instant until = now.plus(cooldown);
    Instant stored =
        cooldowns.compute(key, (k, ends) -> ends == null || !now.isBefore(ends) ? until : ends);
    return stored == until;
  }

  @Override
  public long addAndGet(String counter, long delta) {
    Objects.requireNonNull(counter, "counter");
    return counters.computeIfAbsent(counter, k -> new AtomicLong()).addAndGet(delta);
  }

  private static void requirePositive(Duration duration, String name) {
    Objects.requireNonNull(duration, name);
    if (duration.isZero() || duration.isNegative()) {
      throw new IllegalArgumentException(name + " must be positive, got " + duration);
    }
  }

  private final class Holder implements Lease {
    private final String name;
    private final Duration lease;
    private volatile Instant expires;

    Holder(String name, Duration lease) {
      this.name = name;
      this.lease = lease;
      this.expires = clock.instant().plus(lease);
    }

    boolean expired(Instant now) {
      return !now.isBefore(expires);
    }

    @Override
    public boolean renew() {
      // inside the map's atomic update, so that a take of the expired lock cannot slip in between
      // the check and the new expiry
      boolean[] renewed = {false};
      locks.computeIfPresent(
          name,
          (key, held) -> {
            if (held == this) {
              expires = clock.instant().plus(lease);
              renewed[0] = true;
            }
            return held;
          });
      return renewed[0];
    }

    @Override
    public void close() {
      locks.remove(name, this);
    }
  }
}
