package dev.memstack.client;

/**
 * How one provider did in a context call.
 *
 * @param id the provider instance id
 * @param status {@code ok}, {@code timeout}, {@code error}, {@code open} or {@code disabled}
 * @param tookMs how long the host waited for it
 * @param detail why, when the status is not {@code ok}; {@code null} otherwise
 */
public record ProviderReport(String id, String status, long tookMs, String detail) {

  /** Whether the provider answered in time. */
  public boolean ok() {
    return "ok".equals(status);
  }
}
