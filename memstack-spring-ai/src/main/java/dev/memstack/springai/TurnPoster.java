package dev.memstack.springai;

import dev.memstack.client.MemstackClient;
import dev.memstack.client.TurnRequest;
import dev.memstack.springai.MemstackMetrics.Operation;
import dev.memstack.springai.MemstackMetrics.Outcome;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands turns to the host off the caller's thread. A failure is logged and counted, never thrown:
 * the chat already has its answer. The default executor is one daemon thread with a queue of {@link
 * #QUEUE_CAPACITY} turns (so turns go out in the order the chats finished); {@link #close()} lets
 * it post what is queued, for at most five seconds.
 */
final class TurnPoster implements AutoCloseable {

  /** Turns the default executor keeps waiting before it refuses more. */
  static final int QUEUE_CAPACITY = 1_000;

  private static final Logger log = LoggerFactory.getLogger(TurnPoster.class);

  private final MemstackClient client;
  private final Executor executor;
  private final ExecutorService owned;
  private final MemstackMetrics metrics;

  TurnPoster(MemstackClient client, Executor executor, MemstackMetrics metrics) {
    this.client = client;
    this.metrics = metrics;
    if (executor == null) {
      this.owned = defaultExecutor();
      this.executor = owned;
    } else {
      this.owned = null;
      this.executor = executor;
    }
  }

  /** Queues the turn; returns at once. */
  void post(TurnRequest turn) {
    try {
      executor.execute(() -> send(turn));
    } catch (RejectedExecutionException e) {
      log.warn(
          "memstack: turn of conversation {} not handed in, the queue is full or closed",
          turn.conversationId());
      metrics.record(Operation.TURN, Outcome.REJECTED);
    }
  }

  private void send(TurnRequest turn) {
    try {
      client.postTurn(turn);
      metrics.record(Operation.TURN, Outcome.OK);
    } catch (RuntimeException e) {
      log.warn(
          "memstack: turn of conversation {} not handed in: {}",
          turn.conversationId(),
          e.getMessage());
      metrics.record(Operation.TURN, Outcome.of(e));
    }
  }

  @Override
  public void close() {
    if (owned == null) {
      return;
    }
    owned.shutdown();
    try {
      if (!owned.awaitTermination(5, TimeUnit.SECONDS)) {
        log.warn("memstack: {} turns not handed in at shutdown", owned.shutdownNow().size());
      }
    } catch (InterruptedException e) {
      owned.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private static ExecutorService defaultExecutor() {
    return new ThreadPoolExecutor(
        1,
        1,
        0,
        TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(QUEUE_CAPACITY),
        task -> {
          Thread thread = new Thread(task, "memstack-turns");
          thread.setDaemon(true);
          return thread;
        });
  }
}
