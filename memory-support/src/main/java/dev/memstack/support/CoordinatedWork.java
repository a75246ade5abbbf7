package dev.memstack.support;

import dev.memstack.spi.Coordination;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Small helpers over {@link Coordination} that scheduled and per-key work of several providers
 * share: the slot of a fixed-rate schedule (so every host names one run alike, {@link #slotOf}),
 * waiting a bounded time for a lock ({@link #awaitLock}) and taking turns over more owners than one
 * run may cover ({@link #turn}). Stateless; thread-safe.
 */
public final class CoordinatedWork {

  private static final long POLL_MILLIS = 200;

  private CoordinatedWork() {}

  /**
   * The coordination name of per-owner work: {@code <kind>:<agent>|<digest of the owner key>}. The
   * owner key itself is never written into the shared coordination tables (a cooldown or the lock
   * of a host that died outlives the owner's erasure until it expires), only the first 128 bits of
   * its SHA-256, which names the same owner alike on every host. {@code owner} may be {@code null}
   * (work of no owner): the name then ends with {@code |}.
   */
  public static String ownerWork(String kind, String agent, String owner) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(agent, "agent");
    if (owner == null) {
      return kind + ":" + agent + "|";
    }
    try {
      byte[] digest =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(owner.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return kind
          + ":"
          + agent
          + "|"
          + java.util.HexFormat.of().formatHex(java.util.Arrays.copyOf(digest, 16));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * The run of a schedule that fires at {@code anchor + k × period} that {@code time} belongs to:
   * the fire time nearest to it, as an ISO instant ({@code 2026-12-01T02:00:00Z}). Two hosts whose
   * timers fire a little apart (up to half a period) name the same slot, so {@link
   * Coordination#claimRun} lets one of them run it.
   */
  public static String slotOf(Instant time, Instant anchor, Duration period) {
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(anchor, "anchor");
    long periodMillis = Objects.requireNonNull(period, "period").toMillis();
    if (periodMillis <= 0) {
      throw new IllegalArgumentException("period must be positive, got " + period);
    }
    long since = time.toEpochMilli() - anchor.toEpochMilli();
    long k = Math.floorDiv(since + periodMillis / 2, periodMillis);
    return anchor.plusMillis(k * periodMillis).toString();
  }

  /**
   * Takes the lock {@code name}, trying again every 200 ms while another holder has it, for at most
   * {@code wait}. Empty when it was not taken in time or the thread was interrupted (the interrupt
   * is kept).
   *
   * @throws dev.memstack.spi.ProviderUnavailableException as {@link Coordination#tryLock} does
   */
  public static Optional<Coordination.Lease> awaitLock(
      Coordination coordination, String name, Duration lease, Duration wait) {
    Objects.requireNonNull(coordination, "coordination");
    long until = System.nanoTime() + Objects.requireNonNull(wait, "wait").toNanos();
    while (true) {
      Optional<Coordination.Lease> taken = coordination.tryLock(name, lease);
      if (taken.isPresent() || System.nanoTime() >= until) {
        return taken;
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
  }

  /**
   * At most {@code max} of {@code items} (all of them when {@code max} is 0 or they are no more),
   * taking turns over the runs of a job: each run's window starts where the previous one ended, by
   * the counter {@code counter} ({@link Coordination#addAndGet}), so the hosts on one coordination
   * go round the items together; it wraps around at the end.
   *
   * @throws dev.memstack.spi.ProviderUnavailableException as {@link Coordination#addAndGet} does
   */
  public static <T> List<T> turn(
      Coordination coordination, String counter, List<T> items, int max) {
    Objects.requireNonNull(coordination, "coordination");
    Objects.requireNonNull(counter, "counter");
    if (max == 0 || items.size() <= max) {
      return List.copyOf(items);
    }
    long end = coordination.addAndGet(counter, max);
    return window(items, (int) Math.floorMod(end - max, (long) items.size()), max);
  }

  /** {@code max} of {@code items} (at most all) from index {@code from} on, wrapping around. */
  public static <T> List<T> window(List<T> items, int from, int max) {
    List<T> chosen = new ArrayList<>();
    for (int i = 0; i < Math.min(max, items.size()); i++) {
      chosen.add(items.get(Math.floorMod(from + i, items.size())));
    }
    return chosen;
  }
}
