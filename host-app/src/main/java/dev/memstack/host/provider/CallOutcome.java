package dev.memstack.host.provider;

/**
 * How one provider call under a deadline ended ({@link RequestCalls}).
 *
 * @param status how it ended
 * @param value what the provider returned when {@link Status#OK}, otherwise {@code null}
 * @param tookNanos how long the caller waited for it; {@code 0} when it was not started
 * @param detail a short reason when not {@link Status#OK}, otherwise {@code null}
 */
public record CallOutcome<T>(Status status, T value, long tookNanos, String detail) {

  /** The ways a call under a deadline ends. */
  public enum Status {
    /** The provider answered in time. */
    OK,
    /** No answer before the deadline, or the call failed with a timeout of its own. */
    TIMEOUT,
    /** The call threw, or returned {@code null}. */
    ERROR,
    /**
     * Not started: earlier calls of the provider outlived their deadline and still run, every call
     * thread is in use, or the call pool is shut down.
     */
    BUSY,
    /** Not started: the provider's circuit breaker for the hook is open. */
    OPEN,
    /**
     * The provider did not attempt the call because a dependency of its own is known to be down
     * ({@link dev.memstack.spi.ProviderUnavailableException}): no verdict for the host's breaker.
     */
    UNAVAILABLE
  }

  /** Whether the provider answered in time. */
  public boolean ok() {
    return status == Status.OK;
  }
}
