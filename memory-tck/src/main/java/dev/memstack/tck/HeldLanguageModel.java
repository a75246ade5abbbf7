package dev.memstack.tck;

import dev.memstack.spi.LanguageModel;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A chat model for tests that holds one of its calls until the test releases it, as a model that is
 * still working: the test acts meanwhile (erases the owner, stops a host) and then lets the job go
 * on. The held call waits for {@link #release()} at most for the caller's timeout; every call, the
 * held one included, is answered by the model given. Thread-safe.
 */
public final class HeldLanguageModel implements LanguageModel {

  /** What answers a call. */
  @FunctionalInterface
  private interface Answers {
    String complete(String system, String user, Duration timeout);
  }

  private final int heldCall;
  private final Answers answers;
  private final AtomicInteger calls = new AtomicInteger();
  private final CountDownLatch asked = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  private HeldLanguageModel(int heldCall, Answers answers) {
    this.heldCall = heldCall;
    this.answers = answers;
  }

  /** Holds call number {@code call} (from 1); {@code answers} answers every call. */
  public static HeldLanguageModel holdingCall(int call, LanguageModel answers) {
    return holding(call, answers::complete);
  }

  /** Holds the first call; every call is answered {@code answer}. */
  public static HeldLanguageModel answering(String answer) {
    return holding(1, (system, user, timeout) -> answer);
  }

  private static HeldLanguageModel holding(int call, Answers answers) {
    if (call < 1) {
      throw new IllegalArgumentException("call numbers start at 1: " + call);
    }
    return new HeldLanguageModel(call, answers);
  }

  /** Whether the held call came within {@code wait}. */
  public boolean awaitHeldCall(Duration wait) throws InterruptedException {
    return asked.await(wait.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Lets the held call be answered (and any later one go straight through). */
  public void release() {
    release.countDown();
  }

  @Override
  public boolean available() {
    return true;
  }

  @Override
  public String modelId() {
    return "held";
  }

  @Override
  public String complete(String system, String user, Duration timeout) {
    if (calls.incrementAndGet() == heldCall) {
      asked.countDown();
      try {
        release.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return answers.complete(system, user, timeout);
  }
}
