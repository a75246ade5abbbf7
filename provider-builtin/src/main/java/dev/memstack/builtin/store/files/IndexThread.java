package dev.memstack.builtin.store.files;

import dev.memstack.builtin.concurrent.DaemonThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * The one thread of a keyword index that runs every writer operation: one at most, created when
 * work arrives and ended after a minute without, so that an idle provider holds no thread; it loads
 * classes from this plugin. Nobody interrupts it, and callers wait for it uninterruptibly.
 */
final class IndexThread {

  /** Work for the index thread. */
  interface IndexWork<T> {
    T run() throws IOException;
  }

  private final Path path;
  private final ThreadPoolExecutor executor;

  IndexThread(Path dir) {
    this.path = dir;
    Path instance = dir.toAbsolutePath().getParent();
    String name =
        "memstack-builtin-index"
            + (instance == null || instance.getFileName() == null
                ? ""
                : "-" + instance.getFileName());
    this.executor =
        new ThreadPoolExecutor(
            1, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), DaemonThreads.named(name));
    executor.allowCoreThreadTimeOut(true);
  }

  /**
   * Runs {@code work} on the index thread and waits for it without giving in to interrupts: the
   * work is short, and a caller that stopped waiting half-way would leave a write unindexed. The
   * caller's interrupt flag is set again afterwards.
   */
  <T> T call(IndexWork<T> work) {
    return call(work, null);
  }

  /** Same, waiting at most {@code timeout} ({@code null}: as long as it takes). */
  <T> T call(IndexWork<T> work, Duration timeout) {
    Future<T> result;
    try {
      result = executor.submit((Callable<T>) work::run);
    } catch (RejectedExecutionException e) {
      throw new AlreadyClosedException("the keyword index in " + path + " is closed");
    }
    boolean interrupted = false;
    long deadline = timeout == null ? 0 : System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        try {
          if (timeout == null) {
            return result.get();
          }
          return result.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (TimeoutException e) {
          throw new IllegalStateException(
              "the keyword index thread of "
                  + path
                  + " did not finish within "
                  + timeout.toMillis()
                  + " ms");
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof IOException io) {
            throw new UncheckedIOException("keyword index " + path + ": " + io.getMessage(), io);
          }
          if (cause instanceof RuntimeException runtime) {
            throw runtime;
          }
          if (cause instanceof Error error) {
            throw error;
          }
          throw new IllegalStateException(cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Queues {@code task} without waiting for it. */
  void execute(Runnable task) {
    executor.execute(task);
  }

  /** Lets the queued work finish and the thread end; later work is refused. */
  void shutdown() {
    executor.shutdown();
  }
}
