package dev.memstack.host.plugin;

/**
 * A plugin stop, start or reload did not complete: the plugin did not start, or one of its provider
 * instances could not be created. The message names the plugin and, for an instance, the
 * configuration key at fault.
 */
public final class PluginOperationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public PluginOperationException(String message, Throwable cause) {
    super(message, cause);
  }
}
