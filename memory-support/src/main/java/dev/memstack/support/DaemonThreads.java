package dev.memstack.support;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread factories of daemon threads (a background pool must never keep the JVM alive), named so a
 * thread dump says whose they are.
 */
public final class DaemonThreads {

  private DaemonThreads() {}

  /** Daemon threads all named {@code name} (for a pool of one thread). */
  public static ThreadFactory named(String name) {
    return task -> daemon(task, name);
  }

  /** Daemon threads named {@code prefix1}, {@code prefix2}, ... */
  public static ThreadFactory numbered(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return task -> daemon(task, prefix + count.incrementAndGet());
  }

  private static Thread daemon(Runnable task, String name) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    return thread;
  }
}
