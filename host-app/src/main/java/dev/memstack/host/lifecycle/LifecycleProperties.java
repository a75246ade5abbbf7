package dev.memstack.host.lifecycle;

import java.time.DateTimeException;
import java.time.ZoneId;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the lifecycle loop ({@code memstack.lifecycle.*}).
 *
 * @param zone the time zone that says which day is "yesterday" for the morning card and when a day
 *     starts for the card carried by the first context call of the day (default {@code UTC})
 */
@ConfigurationProperties("memstack.lifecycle")
public record LifecycleProperties(@DefaultValue("UTC") String zone) {

  public LifecycleProperties {
    zone = zone == null || zone.isBlank() ? "UTC" : zone.strip();
    try {
      ZoneId.of(zone);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException(
          "memstack.lifecycle.zone must be a time zone such as UTC or Europe/Berlin, got: " + zone);
    }
  }

  /** The zone. */
  public ZoneId zoneId() {
    return ZoneId.of(zone);
  }
}
