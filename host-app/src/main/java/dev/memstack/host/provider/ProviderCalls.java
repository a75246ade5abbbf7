package dev.memstack.host.provider;

import dev.memstack.support.Require;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.InterruptedIOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.net.http.HttpTimeoutException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Every call of the host into a provider goes through this class: it runs on the current thread
 * with the plugin's class loader as the thread context class loader ({@link PluginClassLoader}) and
 * is measured: Timer {@value #TIMER} tagged {@code provider}, {@code hook} and {@code outcome}
 * ({@code ok}, {@code error}, {@code timeout}) and Counter {@value #ERRORS} tagged {@code provider}
 * and {@code hook}, counted for every outcome but {@code ok}. A call ends as {@code timeout} when
 * it fails while its thread is interrupted (the caller stopped waiting) or with an {@link
 * InterruptedException}, {@link TimeoutException} or {@link InterruptedIOException} in its cause
 * chain. Background work (turn delivery, erasure, tools, health) calls {@link #call} or {@link
 * #run} directly; the request path calls under a deadline and a circuit breaker through {@link
 * RequestCalls}, whose pool threads run the call here. Holds no state but the meter registry and is
 * thread-safe.
 */
public final class ProviderCalls {

  /** Timer of every provider call. */
  public static final String TIMER = "memstack.provider.calls";

  /** Counter of failed and timed-out provider calls. */
  public static final String ERRORS = "memstack.provider.errors";

  public static final String SYSTEM_PROMPT_BLOCK = "systemPromptBlock";
  public static final String PREFETCH = "prefetch";
  public static final String OWNER_PROMPT_BLOCK = "ownerPromptBlock";
  public static final String FEEDBACK = "feedback";
  public static final String WRONG = "wrong";
  public static final String SYNC_TURN = "syncTurn";
  public static final String SYNC_TURNS = "syncTurns";
  public static final String TOOL = "tool";

  /** Listing a provider's tools ({@code tools()}); {@link #TOOL} is calling one. */
  public static final String TOOLS = "tools";

  public static final String FORGET = "forget";
  public static final String HEALTH = "health";

  public static final String OK = "ok";
  public static final String ERROR = "error";
  public static final String TIMEOUT = "timeout";

  private final MeterRegistry registry;

  public ProviderCalls(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /**
   * Calls {@code body} for {@code member} under its class loader and records the outcome.
   *
   * @param member the provider being called
   * @param hook the hook name for the metrics (one of the constants of this class)
   * @param body the call, e.g. {@code () -> member.provider().prefetch(request)}
   * @return what {@code body} returned
   * @throws RuntimeException whatever {@code body} threw (a checked exception thrown sneakily is
   *     wrapped in {@link UndeclaredThrowableException})
   */
  public <T> T call(StackMember member, String hook, Supplier<T> body) {
    Require.nonNull("member hook body", member, hook, body);
    try {
      return measured(member, hook, body, new AtomicBoolean());
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new UndeclaredThrowableException(e, "provider " + member.id() + " threw " + e);
    }
  }

  /** Same as {@link #call} for a body without a result. */
  public void run(StackMember member, String hook, Runnable body) {
    Objects.requireNonNull(body, "body");
    call(
        member,
        hook,
        () -> {
          body.run();
          return null;
        });
  }

  /**
   * Runs {@code body} under the member's class loader and records its outcome, unless {@code
   * recorded} is already set (a waiter that gave up at its deadline recorded a {@code timeout}); a
   * failure, also a checked exception thrown sneakily, is rethrown as it is.
   */
  <T> T measured(StackMember member, String hook, Supplier<T> body, AtomicBoolean recorded) {
    long start = System.nanoTime();
    try {
      T result = PluginClassLoader.call(member.classLoader(), body);
      recordOnce(recorded, member.id(), hook, OK, System.nanoTime() - start);
      return result;
    } catch (Throwable e) {
      recordOnce(recorded, member.id(), hook, outcomeOf(e), System.nanoTime() - start);
      throw e;
    }
  }

  /** Records one call unless {@code recorded} is already set, and sets it. */
  void recordOnce(
      AtomicBoolean recorded, String providerId, String hook, String outcome, long nanos) {
    if (recorded.compareAndSet(false, true)) {
      record(providerId, hook, outcome, nanos);
    }
  }

  /** Records one call; {@code outcome} is {@code ok}, {@code error} or {@code timeout}. */
  private void record(String providerId, String hook, String outcome, long nanos) {
    Timer.builder(TIMER)
        .description("Calls of memory providers")
        .tag("provider", providerId)
        .tag("hook", hook)
        .tag("outcome", outcome)
        .register(registry)
        .record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    if (!OK.equals(outcome)) {
      Counter.builder(ERRORS)
          .description("Failed or timed-out calls of memory providers")
          .tag("provider", providerId)
          .tag("hook", hook)
          .register(registry)
          .increment();
    }
  }

  /**
   * {@code timeout} for a failure caused by an interrupt or a timeout, otherwise {@code error}. The
   * JDK HTTP client's {@link HttpTimeoutException} is an {@code IOException} but no {@code
   * InterruptedIOException}, so it is named here; as a JDK type it is recognised across the plugin
   * boundary.
   */
  public static String outcomeOf(Throwable failure) {
    if (Thread.currentThread().isInterrupted()) {
      return TIMEOUT;
    }
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 20; t = t.getCause(), depth++) {
      if (t instanceof InterruptedException
          || t instanceof TimeoutException
          || t instanceof InterruptedIOException
          || t instanceof HttpTimeoutException) {
        return TIMEOUT;
      }
    }
    return ERROR;
  }
}
