package dev.memstack.vector.lifecycle;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
 */
public final class DecayScheduler {

  private static final Logger LOG = LoggerFactory.getLogger(DecayScheduler.class);

  private final DecayJob job;
  private final Clock clock;
  private final LifecycleSettings settings;
  private volatile ScheduledFuture<?> future;
  private volatile DecayJob.Report lastReport;

  public DecayScheduler(DecayJob job, Clock clock, LifecycleSettings settings) {
    this.job = Objects.requireNonNull(job, "job");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.settings = Objects.requireNonNull(settings, "settings");
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

  private void runSafely() {
    try {
      lastReport = job.run();
    } catch (RuntimeException e) {
      LOG.warn("memory decay failed; it runs again at the next interval: {}", e.toString());
    }
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
