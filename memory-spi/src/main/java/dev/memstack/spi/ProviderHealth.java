package dev.memstack.spi;

import java.util.Objects;

/**
 * A provider's own view of its health.
 *
 * @param status never {@code null}
 * @param detail a short human-readable explanation, never {@code null}, may be empty; must not
 *     contain secrets
 */
public record ProviderHealth(Status status, String detail) {

  /** Health states, in the order of severity. */
  public enum Status {
    UP,
    DEGRADED,
    DOWN
  }

  public ProviderHealth {
    Objects.requireNonNull(status, "status");
    detail = detail == null ? "" : detail;
  }

  public static ProviderHealth up() {
    return new ProviderHealth(Status.UP, "");
  }

  public static ProviderHealth degraded(String detail) {
    return new ProviderHealth(Status.DEGRADED, detail);
  }

  public static ProviderHealth down(String detail) {
    return new ProviderHealth(Status.DOWN, detail);
  }
}
