package dev.memstack.host.api;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.ProviderHealth;
import dev.memstack.support.DaemonThreads;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks a provider for its {@link MemoryProvider#health()} through {@link ProviderCalls} on a small
 * pool of daemon threads, waiting at most {@code memstack.api.health-timeout}. A provider that does
 * not answer in time is {@code DOWN}; while its last check still runs, no second one is started, so
 * a hung provider cannot use up the pool. A late check is never interrupted: it runs to its end in
 * the background. Thread-safe.
 */
public final class ProviderHealthChecker implements AutoCloseable {

  private final ProviderCalls calls;
  private final Duration timeout;
  private final ThreadPoolExecutor executor;
  private final Map<MemoryProvider, Future<ProviderHealth>> running = new ConcurrentHashMap<>();

  public ProviderHealthChecker(ProviderCalls calls, Duration timeout) {
    this.calls = calls;
    this.timeout = timeout;
    this.executor =
        new ThreadPoolExecutor(
            0,
            16,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            DaemonThreads.numbered("memstack-health-"));
  }

  /** The member's health; never {@code null}, never throws. */
  public ProviderHealth check(StackMember member) {
    MemoryProvider provider = member.provider();
    Future<ProviderHealth> previous = running.get(provider);
    if (previous != null && !previous.isDone()) {
      return ProviderHealth.down(
          "the previous health check has not answered yet (timeout " + timeout.toMillis() + " ms)");
    }
    Future<ProviderHealth> future;
    try {
      future =
          executor.submit(
              () -> {
                try {
                  return calls.call(member, ProviderCalls.HEALTH, provider::health);
                } finally {
                  running.remove(provider);
                }
              });
    } catch (RejectedExecutionException e) {
      return ProviderHealth.down("too many health checks are running");
    }
    running.put(provider, future);
    if (future.isDone()) {
      running.remove(provider, future);
    }
    try {
      ProviderHealth health = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return health == null ? ProviderHealth.down("the provider returned no health") : health;
    } catch (TimeoutException e) {
      // left to finish, never interrupted (the SPI's promise); no new check until it has
      return ProviderHealth.down("no answer within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      return ProviderHealth.down(
          "health check failed: "
              + cause.getClass().getSimpleName()
              + (cause.getMessage() == null ? "" : ": " + cause.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return ProviderHealth.down("health check interrupted");
    }
  }

  /** Refuses new checks; running ones finish on their own daemon threads, uninterrupted. */
  @Override
  public void close() {
    executor.shutdown();
  }
}
