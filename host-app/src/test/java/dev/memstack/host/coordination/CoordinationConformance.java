package dev.memstack.host.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.Coordination;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link Coordination}, which every implementation passes: extend it and say how a
 * "host" gets the coordination of an instance. Real time, short leases. For an implementation that
 * spans hosts, two hosts contend from several threads each; for an in-process one both "hosts" are
 * this process.
 */
abstract class CoordinationConformance {

  private static final int THREADS_PER_HOST = 4;

  /** The coordination of {@code instance} as host {@code host} (0 or 1) sees it. */
  protected abstract Coordination coordination(int host, String instance);

  /** Whether two instance ids get names of their own (an SPI-level local coordination: no). */
  protected boolean keepsInstancesApart() {
    return true;
  }

  /** The value {@link Coordination#shared()} must give. */
  protected abstract boolean expectedShared();

  private Coordination one() {
    return coordination(0, "inst");
  }

  @Test
  @DisplayName("tells whether it spans hosts")
  void tellsWhetherItSpansHosts() {
    assertThat(one().shared()).isEqualTo(expectedShared());
  }

  @Test
  @DisplayName("a run is claimed once per job and slot")
  void aRunIsClaimedOncePerJobAndSlot() {
    Coordination c = one();
    assertThat(c.claimRun("dreaming:a", "2026-12-01T03:00Z")).isTrue();
    assertThat(c.claimRun("dreaming:a", "2026-12-01T03:00Z")).isFalse();
    assertThat(coordination(1, "inst").claimRun("dreaming:a", "2026-12-01T03:00Z")).isFalse();
    assertThat(c.claimRun("dreaming:a", "2026-12-02T03:00Z")).isTrue();
    assertThat(c.claimRun("dreaming:b", "2026-12-01T03:00Z")).isTrue();
  }

  @Test
  @DisplayName("of two hosts claiming one run from several threads each, exactly one wins")
  void ofTwoHostsClaimingOneRunExactlyOneWins() throws Exception {
    for (int slot = 0; slot < 10; slot++) {
      String s = "slot-" + slot;
      List<Boolean> results = race(host -> coordination(host, "inst").claimRun("decay", s));
      assertThat(results).as("slot %s", s).containsOnlyOnce(true);
    }
  }

  @Test
  @DisplayName("a lock is held until closed, then free")
  void aLockIsHeldUntilClosed() {
    Optional<Coordination.Lease> first = one().tryLock("extract:a|o", Duration.ofMinutes(1));
    assertThat(first).isPresent();
    assertThat(one().tryLock("extract:a|o", Duration.ofMinutes(1))).isEmpty();
    assertThat(coordination(1, "inst").tryLock("extract:a|o", Duration.ofMinutes(1))).isEmpty();
    assertThat(first.get().renew()).isTrue();
    first.get().close();
    first.get().close();
    Optional<Coordination.Lease> second =
        coordination(1, "inst").tryLock("extract:a|o", Duration.ofMinutes(1));
    assertThat(second).isPresent();
    assertThat(first.get().renew()).as("a closed lease does not renew").isFalse();
    second.get().close();
  }

  @Test
  @DisplayName("a lock whose lease passed is taken; its old holder can neither renew nor free it")
  void anExpiredLockIsTaken() throws InterruptedException {
    Coordination.Lease old = one().tryLock("facts", Duration.ofMillis(300)).orElseThrow();
    Thread.sleep(450);
    Coordination.Lease next =
        coordination(1, "inst").tryLock("facts", Duration.ofMinutes(1)).orElseThrow();
    assertThat(old.renew()).isFalse();
    old.close();
    assertThat(one().tryLock("facts", Duration.ofMinutes(1))).as("still held by next").isEmpty();
    assertThat(next.renew()).isTrue();
    next.close();
  }

  @Test
  @DisplayName("a renewed lease holds past its first expiry")
  void aRenewedLeaseHolds() throws InterruptedException {
    Coordination.Lease lease = one().tryLock("long", Duration.ofMillis(600)).orElseThrow();
    Thread.sleep(350);
    assertThat(lease.renew()).isTrue();
    Thread.sleep(350);
    assertThat(coordination(1, "inst").tryLock("long", Duration.ofMinutes(1))).isEmpty();
    lease.close();
  }

  @Test
  @DisplayName("of many threads on two hosts, at most one holds a lock at a time")
  void atMostOneHoldsALockAtATime() throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger taken = new AtomicInteger();
    race(
        host -> {
          for (int i = 0; i < 25; i++) {
            Optional<Coordination.Lease> lease =
                coordination(host, "inst").tryLock("exclusive", Duration.ofMinutes(1));
            if (lease.isPresent()) {
              taken.incrementAndGet();
              int now = inside.incrementAndGet();
              most.accumulateAndGet(now, Math::max);
              Thread.sleep(1);
              inside.decrementAndGet();
              lease.get().close();
            }
          }
          return true;
        });
    assertThat(most.get()).isEqualTo(1);
    assertThat(taken.get()).isPositive();
  }

  @Test
  @DisplayName("a cooldown refuses until it has passed, and only one of many starts it")
  void aCooldownRefusesUntilItHasPassed() throws Exception {
    List<Boolean> results =
        race(host -> coordination(host, "inst").tryStartCooldown("a|o", Duration.ofMillis(400)));
    assertThat(results).containsOnlyOnce(true);
    assertThat(one().tryStartCooldown("a|o", Duration.ofMillis(400))).isFalse();
    Thread.sleep(550);
    assertThat(coordination(1, "inst").tryStartCooldown("a|o", Duration.ofMillis(400))).isTrue();
    assertThat(one().tryStartCooldown("other", Duration.ofMillis(400))).isTrue();
  }

  @Test
  @DisplayName("counters add up across threads and hosts: no increment is lost")
  void countersAddUp() throws Exception {
    assertThat(one().addAndGet("hits", 0)).isZero();
    race(
        host -> {
          for (int i = 0; i < 50; i++) {
            coordination(host, "inst").addAndGet("hits", 2);
          }
          return true;
        });
    assertThat(one().addAndGet("hits", 0)).isEqualTo(2L * 50 * THREADS_PER_HOST * 2);
    assertThat(coordination(1, "inst").addAndGet("hits", -1))
        .isEqualTo(2L * 50 * THREADS_PER_HOST * 2 - 1);
  }

  @Test
  @DisplayName("two instances never share a run, a lock, a cooldown or a counter")
  void twoInstancesShareNothing() {
    org.junit.jupiter.api.Assumptions.assumeTrue(keepsInstancesApart());
    Coordination a = coordination(0, "a");
    Coordination b = coordination(1, "b");
    assertThat(a.claimRun("job", "1")).isTrue();
    assertThat(b.claimRun("job", "1")).isTrue();
    Optional<Coordination.Lease> lease = a.tryLock("lock", Duration.ofMinutes(1));
    assertThat(b.tryLock("lock", Duration.ofMinutes(1))).isPresent();
    assertThat(a.tryStartCooldown("c", Duration.ofMinutes(1))).isTrue();
    assertThat(b.tryStartCooldown("c", Duration.ofMinutes(1))).isTrue();
    assertThat(a.addAndGet("n", 5)).isEqualTo(5);
    assertThat(b.addAndGet("n", 1)).isEqualTo(1);
    lease.orElseThrow().close();
  }

  @Test
  @DisplayName("refuses a lease or cooldown that is not positive, naming it")
  void refusesBadDurations() {
    assertThatThrownBy(() -> one().tryLock("x", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease");
    assertThatThrownBy(() -> one().tryStartCooldown("x", Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cooldown");
  }

  /** A body of one racer; gets the host it runs as. */
  interface Racer<T> {
    T run(int host) throws Exception;
  }

  /** Runs {@code racer} on {@value #THREADS_PER_HOST} threads per host, all released at once. */
  private static <T> List<T> race(Racer<T> racer) throws Exception {
    int threads = THREADS_PER_HOST * 2;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int host = t % 2;
        Callable<T> call =
            () -> {
              start.await();
              return racer.run(host);
            };
        futures.add(pool.submit(call));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> future : futures) {
        results.add(future.get(60, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
