package dev.memstack.host.model;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Thread factories for the model clients' pools: daemon threads named prefix + a number. */
final class DaemonThreads {

  private DaemonThreads() {}

  /** Daemon threads named {@code prefix1}, {@code prefix2}, ... */
  static ThreadFactory named(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
