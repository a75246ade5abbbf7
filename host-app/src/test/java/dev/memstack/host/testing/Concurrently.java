package dev.memstack.host.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Callers on their own threads for the tests that make calls while something changes under them (a
 * reload, a restart): each caller makes its call again and again until {@link #stop}, and what a
 * call throws is kept as a failure instead of ending the caller.
 */
public final class Concurrently implements AutoCloseable {

  /**
   * One call of a caller: {@code caller} counts the callers of one kind, {@code round} its calls.
   */
  @FunctionalInterface
  public interface Call {
    void run(int caller, int round) throws Exception;
  }

  private final AtomicBoolean go = new AtomicBoolean(true);
  private final List<Thread> threads = new ArrayList<>();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();

  private Concurrently() {}

  /** Starts {@code callers} threads, each repeating {@code call} until {@link #stop}. */
  public static Concurrently repeat(int callers, Call call) {
    return new Concurrently().and(callers, call);
  }

  /** Starts {@code callers} more threads, each repeating {@code call} until {@link #stop}. */
  public Concurrently and(int callers, Call call) {
    for (int c = 0; c < callers; c++) {
      int caller = c;
      Thread thread =
          new Thread(
              () -> {
                for (int round = 0; go.get(); round++) {
                  try {
                    call.run(caller, round);
                  } catch (Throwable e) {
                    failures.add(e);
                  }
                }
              },
              "caller-" + threads.size());
      thread.start();
      threads.add(thread);
    }
    return this;
  }

  /** Lets every caller finish its current call, waiting up to {@code wait} for each. */
  public Concurrently stop(Duration wait) throws InterruptedException {
    go.set(false);
    for (Thread thread : threads) {
      thread.join(wait.toMillis());
    }
    return this;
  }

  /** What the calls threw, in the order they threw it. */
  public List<Throwable> failures() {
    return List.copyOf(failures);
  }

  /** Stops the callers if the test did not (a failed assertion on the way). */
  @Override
  public void close() throws InterruptedException {
    stop(Duration.ofSeconds(30));
  }

  /**
   * Makes {@code calls} calls of {@code call} at the same time, each on its own thread, and returns
   * their answers; the first that throws fails the whole.
   */
  public static <T> List<T> all(int calls, Callable<T> call)
      throws InterruptedException, ExecutionException {
    ExecutorService callers = Executors.newFixedThreadPool(calls);
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        futures.add(callers.submit(call));
      }
      List<T> answers = new ArrayList<>();
      for (Future<T> future : futures) {
        answers.add(future.get());
      }
      return answers;
    } finally {
      callers.shutdownNow();
    }
  }
}
