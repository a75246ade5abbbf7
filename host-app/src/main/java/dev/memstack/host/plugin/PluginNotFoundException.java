package dev.memstack.host.plugin;

/** No plugin with the requested id is loaded. */
public final class PluginNotFoundException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public PluginNotFoundException(String pluginId) {
    super("no plugin with id '" + pluginId + "' is loaded");
  }
}
