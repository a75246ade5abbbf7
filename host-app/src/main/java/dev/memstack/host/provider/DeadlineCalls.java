package dev.memstack.host.provider;

import dev.memstack.host.provider.CallOutcome.Status;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.support.DaemonThreads;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs provider calls on a bounded pool of daemon threads so that the caller can stop waiting at a
 * deadline; a call the caller gives up on is left to finish on its own, never interrupted: an
 * interrupt during file or socket I/O closes NIO channels for good inside libraries such as Lucene
 * (its IndexWriter) and JDBC drivers. Closing the pool does not interrupt either. At most {@code
 * maxLateCalls} calls of one provider instance may still be running after their caller gave up: a
 * provider that hangs and never returns holds at most that many threads, and its further calls are
 * refused at once as busy until one of them returns. Each call is recorded exactly once through
 * {@link ProviderCalls}: by the worker when it finishes first, as {@code timeout} by the waiter
 * when the deadline comes first. The request path uses it through {@link RequestCalls}.
 */
final class DeadlineCalls implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DeadlineCalls.class);

  /** How long {@link #close()} waits for running calls before it leaves them to finish alone. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  private static final int RUNNING = 0;
  private static final int DONE = 1;
  private static final int LATE = 2;

  private final ProviderCalls calls;
  private final int maxLateCalls;
  private final ThreadPoolExecutor pool;

  /** Late calls per provider instance; weak, so an unloaded provider's entry goes with it. */
  private final Map<MemoryProvider, AtomicInteger> late =
      Collections.synchronizedMap(new WeakHashMap<>());

  DeadlineCalls(ProviderCalls calls, int maxLateCalls, int threads) {
    this.calls = Objects.requireNonNull(calls, "calls");
    this.maxLateCalls = maxLateCalls;
    ThreadFactory factory = DaemonThreads.numbered("memstack-provider-call-");
    this.pool =
        new ThreadPoolExecutor(0, threads, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), factory);
  }

  /** A call that has been started (or refused); {@link #await} it once. */
  final class Call<T> {
    private final StackMember member;
    private final String hook;
    private final long startNanos = System.nanoTime();
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private final AtomicBoolean recorded = new AtomicBoolean();
    private final AtomicInteger phase = new AtomicInteger(RUNNING);
    private volatile boolean started;
    private volatile Future<?> task;
    private volatile String refusal;

    private Call(StackMember member, String hook) {
      this.member = member;
      this.hook = hook;
    }

    /** Whether the call was refused without running. */
    boolean refused() {
      return refusal != null;
    }

    /**
     * Runs {@code action} once the call has ended (at once when it was refused), on the thread that
     * ended it: keep it short.
     */
    void whenDone(Runnable action) {
      if (refusal != null) {
        action.run();
      } else {
        result.whenComplete((value, failure) -> action.run());
      }
    }

    /** Waits until the call ends or {@code deadlineNanos} ({@link System#nanoTime()} scale). */
    CallOutcome<T> await(long deadlineNanos) {
      if (refusal != null) {
        return new CallOutcome<>(Status.BUSY, null, 0, refusal);
      }
      try {
        long left = deadlineNanos - System.nanoTime();
        T value = result.get(Math.max(0, left), TimeUnit.NANOSECONDS);
        return new CallOutcome<>(Status.OK, value, System.nanoTime() - startNanos, null);
      } catch (TimeoutException e) {
        long took = System.nanoTime() - startNanos;
        calls.recordOnce(recorded, member.id(), hook, ProviderCalls.TIMEOUT, took);
        abandon();
        return new CallOutcome<>(
            Status.TIMEOUT,
            null,
            took,
            "no answer within " + Duration.ofNanos(took).toMillis() + " ms");
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        Status status =
            cause instanceof ProviderUnavailableException
                ? Status.UNAVAILABLE
                : ProviderCalls.TIMEOUT.equals(ProviderCalls.outcomeOf(cause))
                    ? Status.TIMEOUT
                    : Status.ERROR;
        return new CallOutcome<>(status, null, System.nanoTime() - startNanos, describe(cause));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        abandon();
        return new CallOutcome<>(
            Status.TIMEOUT,
            null,
            System.nanoTime() - startNanos,
            "the context call was interrupted");
      }
    }

    /** Marks a still running call as late; it is not interrupted (see the class comment). */
    private void abandon() {
      AtomicInteger counter = lateCounter(member.provider());
      counter.incrementAndGet();
      if (!phase.compareAndSet(RUNNING, LATE)) {
        counter.decrementAndGet(); // it finished in the meantime
        return;
      }
      task.cancel(false);
      if (!started) {
        // Cancelled before it ran: the body never runs, so no worker will end the late phase.
        endLate();
      }
    }

    /** Ends the call; the one who moves it from late to done gives the late slot back. */
    private void finishRun() {
      if (!phase.compareAndSet(RUNNING, DONE)) {
        endLate();
      }
    }

    private void endLate() {
      if (phase.compareAndSet(LATE, DONE)) {
        lateCounter(member.provider()).decrementAndGet();
      }
    }
  }

  /** Starts {@code body} for {@code member}, or refuses it at once when the member is busy. */
  <T> Call<T> start(StackMember member, String hook, Supplier<T> body) {
    Call<T> call = new Call<>(member, hook);
    int lateNow = lateCalls(member);
    if (lateNow >= maxLateCalls) {
      call.refusal =
          "busy: "
              + lateNow
              + " earlier calls of this provider outlived their deadline and still run";
      return call;
    }
    try {
      call.task = pool.submit(() -> runCall(call, body));
    } catch (RejectedExecutionException e) {
      call.refusal =
          pool.isShutdown()
              ? "the memory stack is shut down"
              : "busy: all " + pool.getMaximumPoolSize() + " provider call threads are in use";
    }
    return call;
  }

  private <T> void runCall(Call<T> call, Supplier<T> body) {
    call.started = true;
    try {
      call.result.complete(calls.measured(call.member, call.hook, body, call.recorded));
    } catch (Throwable e) {
      call.result.completeExceptionally(e);
    } finally {
      call.finishRun();
    }
  }

  /** How many calls of this member's provider still run after their caller gave up. */
  int lateCalls(StackMember member) {
    AtomicInteger counter = late.get(member.provider());
    return counter == null ? 0 : counter.get();
  }

  private AtomicInteger lateCounter(MemoryProvider provider) {
    return late.computeIfAbsent(provider, p -> new AtomicInteger());
  }

  static String describe(Throwable failure) {
    String message = failure.getMessage();
    String text =
        failure.getClass().getSimpleName()
            + (message == null || message.isBlank() ? "" : ": " + message.strip());
    return text.length() > 300 ? text.substring(0, 300) + "..." : text;
  }

  /**
   * Refuses new calls and waits up to {@link #CLOSE_WAIT} for the running ones; none is
   * interrupted, and a call still running then finishes on its daemon thread on its own.
   */
  @Override
  public void close() {
    close(CLOSE_WAIT);
  }

  void close(Duration wait) {
    pool.shutdown();
    try {
      if (!pool.awaitTermination(wait.toNanos(), TimeUnit.NANOSECONDS)) {
        log.info(
            "{} provider call(s) still running {} ms after the call pool closed;"
                + " they finish on their own",
            pool.getActiveCount(),
            wait.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
