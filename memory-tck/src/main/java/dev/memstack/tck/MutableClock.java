package dev.memstack.tck;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} that stands still until a test moves it with {@link #advance(Duration)} or {@link
 * #set(Instant)}. Thread-safe; clocks made by {@link #withZone(ZoneId)} share the same time.
 */
public final class MutableClock extends Clock {

  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  private MutableClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = Objects.requireNonNull(zone, "zone");
  }

  /** A clock standing at {@code start}, in UTC. */
  public static MutableClock at(Instant start) {
    return new MutableClock(
        new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
  }

  /** A clock standing at the current system time (milliseconds), in UTC. */
  public static MutableClock atSystemTime() {
    return at(Instant.ofEpochMilli(System.currentTimeMillis()));
  }

  /** Moves the clock forward (or back, for a negative amount) and returns the new time. */
  public Instant advance(Duration amount) {
    Objects.requireNonNull(amount, "amount");
    return now.updateAndGet(t -> t.plus(amount));
  }

  /** Sets the clock to {@code instant}. */
  public void set(Instant instant) {
    now.set(Objects.requireNonNull(instant, "instant"));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  @Override
  public Clock withZone(ZoneId newZone) {
    return new MutableClock(now, newZone);
  }

  @Override
  public String toString() {
    return "MutableClock[" + now.get() + ", " + zone + "]";
  }
}
