package dev.memstack.host.stack;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.Objects;
import java.util.Set;

/**
 * How one provider did in a context call (JSON schema {@code ReportView}; {@code detail} left out
 * when {@code null}).
 *
 * @param id the provider instance id, never {@code null}
 * @param status {@code ok}, {@code timeout} (late, left out), {@code error} (threw, or too many of
 *     its calls are still running), {@code open} (circuit breaker open, not called), {@code
 *     disabled} (configured but not running) or {@code skipped} (running, but not among the
 *     providers the call asked to recall from)
 * @param tookMs how long the host waited for it, in milliseconds ({@code 0} when not called)
 * @param detail a short reason when the status is not {@code ok}; {@code null} otherwise. Exception
 *     class and message only, never configuration values.
 */
@Schema(name = "ReportView")
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProviderReport(String id, String status, long tookMs, String detail) {

  public static final String OK = "ok";
  public static final String TIMEOUT = "timeout";
  public static final String ERROR = "error";
  public static final String OPEN = "open";
  public static final String DISABLED = "disabled";
  public static final String SKIPPED = "skipped";

  private static final Set<String> STATUSES = Set.of(OK, TIMEOUT, ERROR, OPEN, DISABLED, SKIPPED);

  public ProviderReport {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(status, "status");
    if (!STATUSES.contains(status)) {
      throw new IllegalArgumentException(
          "status must be one of ok, timeout, error, open, disabled, got: " + status);
    }
    if (tookMs < 0) {
      throw new IllegalArgumentException("tookMs must not be negative, got: " + tookMs);
    }
  }

  /** Whether the provider answered in time. */
  public boolean ok() {
    return OK.equals(status);
  }
}
