package dev.memstack.host.provider;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * Runs code with a plugin's class loader as the thread context class loader and restores the
 * previous one afterwards, whatever the code throws. Plugins find their resources, services and
 * drivers through it, so the host sets it around every call into a plugin; this is the one place
 * that switches it.
 */
public final class PluginClassLoader {

  private PluginClassLoader() {}

  /** Runs {@code body} with {@code loader} as context class loader and returns its result. */
  public static <T> T call(ClassLoader loader, Supplier<T> body) {
    Objects.requireNonNull(body, "body");
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      return body.get();
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  /** Same as {@link #call} for a body without a result. */
  public static void run(ClassLoader loader, Runnable body) {
    Objects.requireNonNull(body, "body");
    call(
        loader,
        () -> {
          body.run();
          return null;
        });
  }
}
