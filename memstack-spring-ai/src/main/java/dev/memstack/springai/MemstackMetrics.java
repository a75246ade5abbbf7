package dev.memstack.springai;

import dev.memstack.client.MemstackApiException;
import dev.memstack.client.MemstackConnectionException;
import java.util.Locale;

/**
 * What the advisor reports about its calls to the host. {@link #NOOP} by default; {@link
 * MicrometerMemstackMetrics} counts them in a Micrometer registry. Implementations must be
 * thread-safe and must not throw.
 */
public interface MemstackMetrics {

  /** Reports nothing. */
  MemstackMetrics NOOP = (operation, outcome) -> {};

  /** Which call to the host. */
  enum Operation {
    /** The context call before the model runs. */
    CONTEXT,
    /** The turn handed in after the model answered. */
    TURN;

    /** The tag value: {@code context} or {@code turn}. */
    public String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** How a call went. */
  enum Outcome {
    /** The host answered with success. */
    OK,
    /** The host did not answer within the client's timeout. */
    TIMEOUT,
    /** The host could not be reached, or its answer was not usable. */
    UNREACHABLE,
    /** The host answered 5xx. */
    HOST_ERROR,
    /** The host refused the request (4xx). */
    REFUSED,
    /** The turn could not even be queued for posting (the advisor's queue was full). */
    REJECTED;

    /** The tag value, such as {@code host_error}. */
    public String tag() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The outcome a failed call had. */
    public static Outcome of(RuntimeException failure) {
      if (failure instanceof MemstackConnectionException connection) {
        return connection.timedOut() ? TIMEOUT : UNREACHABLE;
      }
      if (failure instanceof MemstackApiException api && api.clientError()) {
        return REFUSED;
      }
      return failure instanceof MemstackApiException ? HOST_ERROR : UNREACHABLE;
    }
  }

  /** Records one call's outcome. */
  void record(Operation operation, Outcome outcome);
}
