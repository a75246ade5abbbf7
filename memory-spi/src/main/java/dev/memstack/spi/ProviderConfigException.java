package dev.memstack.spi;

/**
 * An invalid provider configuration. The message names the full key (e.g. {@code
 * memstack.providers.mem0.config.base-url}) and what is wrong with it; it never contains the value
 * of a secret.
 */
public class ProviderConfigException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String key;

  public ProviderConfigException(String key, String problem) {
    super(key + ": " + problem);
    this.key = key;
  }

  /** The full configuration key at fault. */
  public String key() {
    return key;
  }
}
