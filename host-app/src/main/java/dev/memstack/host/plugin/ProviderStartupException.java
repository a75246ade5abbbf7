package dev.memstack.host.plugin;

import java.util.Objects;

/**
 * A provider instance cannot run: an unknown type, a missing plugin, an invalid setting or a
 * factory that failed. The message starts with the configuration key at fault. At start-up it stops
 * the host.
 */
public final class ProviderStartupException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String key;

  public ProviderStartupException(String key, String problem) {
    this(key, problem, null);
  }

  public ProviderStartupException(String key, String problem, Throwable cause) {
    super(Objects.requireNonNull(key, "key") + ": " + problem, cause);
    this.key = key;
  }

  /** The full configuration key at fault, e.g. {@code memstack.providers.mem0.config.base-url}. */
  public String key() {
    return key;
  }
}
