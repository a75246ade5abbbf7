package dev.memstack.builtin.concurrent;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads the plugin starts for itself: daemons (they never keep the host's JVM alive) whose
 * context class loader is the plugin's, so that what they load (JDBC drivers, Jackson modules,
 * Lucene codecs) is found in the plugin, not in whatever thread happened to start them.
 */
public final class DaemonThreads {

  private DaemonThreads() {}

  /** Threads all named {@code name}. */
  public static ThreadFactory named(String name) {
    return task -> thread(task, name);
  }

  /** Threads named {@code prefix} and a running number from 1. */
  public static ThreadFactory numbered(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return task -> thread(task, prefix + count.incrementAndGet());
  }

  private static Thread thread(Runnable task, String name) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.setContextClassLoader(DaemonThreads.class.getClassLoader());
    return thread;
  }
}
