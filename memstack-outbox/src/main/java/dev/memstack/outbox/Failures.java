package dev.memstack.outbox;

import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.TurnRejectedException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * Describes a provider failure for logs and status answers without secrets: credentials in URLs,
 * query strings and {@code key=value} pairs named like secrets are masked, and the text is cut to a
 * few hundred characters.
 */
public final class Failures {

  private static final int MAX_LENGTH = 300;
  private static final Pattern URL_USER =
      Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/@\\s]+@");
  private static final Pattern QUERY = Pattern.compile("([?&][^=\\s&#]+=)[^&\\s#]+");
  private static final Pattern NAMED_SECRET =
      Pattern.compile(
          "(?i)\\b((?:api[_-]?key|x-api-key|token|secret|password|passwd|pwd|authorization"
              + "|bearer)[\"']?\\s*[=:]?\\s*[\"']?)(?:(?:bearer|token|basic)\\s+)?[^\\s,;&\"']+");

  private Failures() {}

  /** {@code Class: message} of a failure, masked and shortened. */
  public static String describe(Throwable failure) {
    String message = failure.getMessage();
    return redact(failure.getClass().getName() + (message == null ? "" : ": " + message));
  }

  /**
   * What a failed delivery comes to: {@code rejected} when the provider threw {@link
   * TurnRejectedException}; {@code unavailable} when it threw {@link ProviderUnavailableException}
   * or a timeout or refused connection is among the causes (a socket or HTTP timeout, {@link
   * TimeoutException}, {@link ConnectException}); else {@code failed}.
   */
  static String outcome(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
      if (t instanceof TurnRejectedException) {
        return Attempt.REJECTED;
      }
      if (t instanceof ProviderUnavailableException
          || t instanceof TimeoutException
          || t instanceof InterruptedIOException // socket timeouts
          || t instanceof java.net.http.HttpTimeoutException
          || t instanceof ConnectException) {
        return Attempt.UNAVAILABLE;
      }
    }
    return Attempt.FAILED;
  }

  /** Masks secrets in {@code text} and cuts it to a few hundred characters. */
  public static String redact(String text) {
    String masked = URL_USER.matcher(text).replaceAll("$1***@");
    masked = QUERY.matcher(masked).replaceAll("$1***");
    masked = NAMED_SECRET.matcher(masked).replaceAll("$1***");
    masked = masked.replaceAll("[\\r\\n\\t]+", " ");
    return masked.length() <= MAX_LENGTH ? masked : masked.substring(0, MAX_LENGTH - 1) + "…";
  }
}
