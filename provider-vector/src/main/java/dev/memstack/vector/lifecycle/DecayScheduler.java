package dev.memstack.vector.lifecycle;

import dev.memstack.spi.Coordination;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.support.CoordinatedWork;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link DecayJob} at {@code decay-at} (UTC, read from the provider's clock) and then every
 * {@code decay-interval}, on the provider's maintenance executor. A failed run is logged and the
 * next one runs as planned. {@link #cancel} stops it.
 *
 * <p>When the coordination spans hosts ({@link Coordination#shared()}), a run first claims its slot
 * ({@code decay} at the scheduled time nearest to now, {@link CoordinatedWork#slotOf}): of the
 * hosts that run this instance, one decays and the others skip; an unreachable coordination skips
 * the run. On one host nothing is claimed.
 */
public final class DecayScheduler {

  private static final Logger LOG = LoggerFactory.getLogger(DecayScheduler.class);

  private final DecayJob job;
  private final Clock clock;
  private final LifecycleSettings settings;
  private final Coordination coordination;
  private volatile ScheduledFuture<?> future;
  private volatile DecayJob.Report lastReport;

  public DecayScheduler(DecayJob job, Clock clock, LifecycleSettings settings) {
    this(job, clock, settings, Coordination.local(clock));
  }

  public DecayScheduler(
      DecayJob job, Clock clock, LifecycleSettings settings, Coordination coordination) {
    this.job = Objects.requireNonNull(job, "job");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.coordination = Objects.requireNonNull(coordination, "coordination");
  }

  /** Schedules the runs on {@code executor}. */
  public void start(ScheduledExecutorService executor) {
    long delay = delayUntilNext(clock.instant(), settings.decayAt()).toMillis();
    future =
        executor.scheduleAtFixedRate(
            this::runSafely, delay, settings.decayInterval().toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Stops future runs; a run in progress finishes. */
  public void cancel() {
    ScheduledFuture<?> f = future;
    if (f != null) {
      f.cancel(false);
    }
  }

  /** The last run's report, or {@code null} before the first run. */
  public DecayJob.Report lastReport() {
    return lastReport;
  }

  /** Runs the job now unless another host has claimed this slot. */
  void runSafely() {
    try {
      if (coordination.shared()) {
        String slot = slotOf(clock.instant());
        if (!coordination.claimRun("decay", slot)) {
          LOG.debug("memory decay of {}: run by another host", slot);
          return;
        }
      }
      lastReport = job.run();
    } catch (ProviderUnavailableException e) {
      LOG.warn("memory decay skipped, it runs again at the next interval: {}", e.getMessage());
    } catch (RuntimeException e) {
      LOG.warn("memory decay failed; it runs again at the next interval: {}", e.toString());
    }
  }

  /** The run {@code now} belongs to: the nearest time of {@code decay-at} + k × interval. */
  String slotOf(Instant now) {
    Instant anchor = LocalDate.EPOCH.atTime(settings.decayAt()).toInstant(ZoneOffset.UTC);
    return CoordinatedWork.slotOf(now, anchor, settings.decayInterval());
  }

  /** Time from {@code now} to the next {@code at} (UTC); a full day when it is exactly now. */
  static Duration delayUntilNext(Instant now, LocalTime at) {
    ZonedDateTime current = now.atZone(ZoneOffset.UTC);
    ZonedDateTime next = current.toLocalDate().atTime(at).atZone(ZoneOffset.UTC);
    if (!next.isAfter(current)) {
      next = next.plusDays(1);
    }
    return Duration.between(current, next);
  }
}
