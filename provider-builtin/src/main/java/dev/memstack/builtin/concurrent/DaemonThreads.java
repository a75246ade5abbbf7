package dev.memstack.builtin.concurrent;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads the plugin starts for itself: daemons (they never keep the host's JVM alive) whose
 * context class loader is the plugin's, so that what they load (JDBC drivers, Jackson modules,
 * Lucene codecs) is found in the plugin, not in whatever thread happened to start them. The names
 * and the daemon flag are those of {@link dev.memstack.support.DaemonThreads}.
 */
public final class DaemonThreads {

  private DaemonThreads() {}

  /** Threads all named {@code name}. */
  public static ThreadFactory named(String name) {
    return inPlugin(dev.memstack.support.DaemonThreads.named(name));
  }

  /** Threads named {@code prefix} and a running number from 1. */
  public static ThreadFactory numbered(String prefix) {
    return inPlugin(dev.memstack.support.DaemonThreads.numbered(prefix));
  }

  /**
   * A pool of {@code threads} threads from {@code factory}, ended after 30 s without work, with a
   * queue of 64 tasks; a task that finds the queue full is dropped and {@code full} is called.
   */
  public static ThreadPoolExecutor boundedPool(int threads, ThreadFactory factory, Runnable full) {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(64),
            factory,
            (runnable, executor) -> full.run());
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * Interrupts the executor's threads and waits up to 5 s for them to end ({@code null}: nothing).
   */
  public static void stop(ExecutorService executor) {
    if (executor == null) {
      return;
    }
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The daemon threads of {@code daemons}, with the plugin's class loader as context loader. */
  private static ThreadFactory inPlugin(ThreadFactory daemons) {
    return task -> {
      Thread thread = daemons.newThread(task);
      thread.setContextClassLoader(DaemonThreads.class.getClassLoader());
      return thread;
    };
  }
}
